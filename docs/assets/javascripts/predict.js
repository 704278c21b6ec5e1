/* "Predict, then run": the questions before some notebook cells (coursebuild/render/predict.py marks them
   with data-predict). The choices become buttons; what would give the answer away (the asked cell's
   output, the checks and the explanation, all marked data-reveal) stays closed until the reader picks
   a choice or asks for the answer, then opens in place. A tiny script in overrides/main.html closes
   them before the first paint (class predict-js); without JavaScript everything reads in order, as in
   Colab. The answer key (data-answer) is the choice the executed output shows; the build checks that
   exactly one does. Answers are kept in this browser (localStorage) and nowhere else.
   What stays closed arrives inside <noscript data-later> (one text node while scripts run, not a few
   hundred elements): it becomes part of the page when its question is answered, and every one of
   them before the page is printed, where the print stylesheet shows them all. */
(() => {
  const tally = document.querySelector("[data-predict-tally]");
  const containers = [...document.querySelectorAll("[data-predict]")];
  if (!tally || !containers.length) return;
  const L = tally.dataset;
  const SHOWN = "shown";  // the answer was shown without a prediction: not counted
  let store = null;
  try { store = window.localStorage; store.getItem("predict"); } catch (err) { store = null; }
  const key = q => `predict:${location.pathname}#${q.number}`;
  const questions = [];

  // the closed parts of question `number` (all of them: null) made part of the page
  const later = number => {
    const selector = number === null ? "noscript[data-later]" : `noscript[data-later="${number}"]`;
    const found = [...document.querySelectorAll(selector)];
    for (const part of found) {
      const html = document.createElement("template");
      html.innerHTML = part.textContent;
      const added = [...html.content.children];
      part.replaceWith(html.content);
      for (const el of added) window.nbHighlight?.(el);
    }
    if (found.length) dispatchEvent(new Event("resize"));  // extra.js: what scrolls becomes a Tab stop
  };
  const printing = () => {
    later(null);
    for (const q of questions) q.reveals = [...document.querySelectorAll(`[data-reveal="${q.number}"]`)];
  };
  addEventListener("beforeprint", printing);
  matchMedia("print").addEventListener("change", ev => ev.matches && printing());

  const el = (tag, attrs = {}, ...children) => {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
    node.append(...children);
    return node;
  };

  // a choice's code with a place to break after each `=` (`nbytes()=` / `2048`, not `204` / `8`): a
  // zero-width space, which breaks as a <wbr> does without an element for each
  const breakable = code => {
    const copy = code.cloneNode(true);
    for (const text of [...copy.childNodes].filter(n => n.nodeType === Node.TEXT_NODE))
      text.data = text.data.split(/(?<==)(?!=)/).join("\u200b");
    return copy;
  };

  for (const box of containers) {
    const list = box.querySelector("ul.predict-choices");
    if (!list) continue;
    const number = box.dataset.predict;
    const items = [...list.querySelectorAll(":scope > li[data-choice]")];
    const q = {number, answer: Number(box.dataset.answer), picked: null,
               fragments: items.map(li => li.querySelector("code")),
               reveals: [...document.querySelectorAll(`[data-reveal="${number}"]`)]};
    const prompt = list.previousElementSibling;  // the question's paragraph
    const legend = el("legend", {class: "predict-question"});
    if (prompt && prompt.tagName === "P") { legend.append(...prompt.childNodes); prompt.remove(); }
    q.buttons = q.fragments.map((code, i) => {
      const button = el("button", {type: "button", class: "predict-choice", "aria-pressed": "false"},
                        breakable(code));
      button.addEventListener("click", () => pick(q, i));
      return button;
    });
    q.reveal = el("button", {type: "button", class: "predict-show"}, L.show);
    q.reveal.addEventListener("click", () => pick(q, SHOWN));
    q.verdict = el("div", {class: "predict-verdict", role: "status"});
    const form = el("fieldset", {class: "predict-form"}, legend,
                    el("div", {class: "predict-choices-buttons"}, ...q.buttons), q.reveal, q.verdict);
    list.replaceWith(form);
    const output = document.getElementById(box.dataset.output)?.querySelector("[data-reveal], noscript[data-later]");
    if (output) {
      q.pending = el("p", {class: "predict-pending"}, L.pending);
      output.before(q.pending);
    }
    questions.push(q);
    const saved = store ? store.getItem(key(q)) : null;
    show(q, saved === SHOWN ? SHOWN : saved !== null && q.buttons[Number(saved)] ? Number(saved) : null);
  }
  if (!questions.length) return;

  const count = el("p", {class: "predict-count"});
  const reset = el("button", {type: "button", class: "md-button predict-reset"}, L.reset);
  reset.addEventListener("click", () => {
    for (const q of questions) {
      if (store) store.removeItem(key(q));
      show(q, null);
    }
    update();
    questions[0].buttons[0].focus();
  });
  tally.append(count, reset);
  tally.hidden = false;
  update();

  function pick(q, choice) {
    if (q.picked !== null) return;  // the first answer counts; "Clear my answers" starts again
    if (store) { try { store.setItem(key(q), String(choice)); } catch (err) { /* full or refused: keep it in the page */ } }
    show(q, choice);
    update();
  }

  function show(q, choice) {
    q.picked = choice;
    const done = choice !== null;
    const predicted = typeof choice === "number";
    const right = choice === q.answer;
    q.buttons.forEach((button, j) => {
      button.setAttribute("aria-pressed", String(j === choice));
      button.classList.toggle("is-answer", done && j === q.answer);
      button.classList.toggle("is-wrong", predicted && j === choice && !right);
      if (done) button.setAttribute("aria-disabled", "true");
      else button.removeAttribute("aria-disabled");
    });
    q.reveal.hidden = done;
    q.verdict.replaceChildren();
    const printed = () => el("p", {}, L.printed, " ", q.fragments[q.answer].cloneNode(true));
    if (predicted && right) q.verdict.append(el("p", {}, el("strong", {}, L.correct), " ",
                                               q.fragments[q.answer].cloneNode(true)));
    else if (predicted) q.verdict.append(el("p", {}, el("strong", {}, L.wrong)), printed());
    else if (done) q.verdict.append(printed());
    q.verdict.classList.toggle("is-right", predicted && right);
    q.verdict.classList.toggle("is-wrong", predicted && !right);
    if (done) {
      later(q.number);
      q.reveals = [...document.querySelectorAll(`[data-reveal="${q.number}"]`)];
    }
    for (const part of q.reveals) part.classList.toggle("is-open", done);
    if (q.pending) q.pending.hidden = done;
  }

  function update() {
    const answered = questions.filter(q => typeof q.picked === "number");
    const right = answered.filter(q => q.picked === q.answer).length;
    count.textContent = L.tally.replace("{right}", right).replace("{answered}", answered.length)
                               .replace("{total}", questions.length);
  }
})();
