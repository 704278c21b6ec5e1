/* "Predict, then run": the questions before some notebook cells (scripts/mkdocs_hooks.py marks them
   with data-predict). Without this script a question reads as written and the output is shown. With it,
   the choices become buttons, the next cell's output stays hidden until the reader picks one, and the
   verdict says why. The answer key (data-answer) is the choice the executed output shows; the build
   checks that exactly one does. Answers are kept in this browser (localStorage) and nowhere else. */
(() => {
  const tally = document.querySelector("[data-predict-tally]");
  const containers = [...document.querySelectorAll("[data-predict]")];
  if (!tally || !containers.length) return;
  const L = tally.dataset;
  let store = null;
  try { store = window.localStorage; store.getItem("predict"); } catch (err) { store = null; }
  const key = q => `predict:${location.pathname}#${q.number}`;
  const questions = [];

  const el = (tag, attrs = {}, ...children) => {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
    node.append(...children);
    return node;
  };
  // The why of a choice: its list item without the leading `fragment` and separator.
  const why = li => {
    const copy = li.cloneNode(true);
    copy.querySelector("code")?.remove();
    const first = copy.firstChild;
    if (first && first.nodeType === Node.TEXT_NODE) first.textContent = first.textContent.replace(/^[\s—–:：-]+/, "");
    return copy;
  };

  for (const box of containers) {
    const list = box.querySelector("ul.predict-choices");
    const output = document.getElementById(box.dataset.output)?.querySelector(".jp-Cell-outputWrapper");
    if (!list) continue;
    const items = [...list.querySelectorAll(":scope > li[data-choice]")];
    const q = {number: box.dataset.predict, answer: Number(box.dataset.answer), output, picked: null,
               fragments: items.map(li => li.querySelector("code")), whys: items.map(why)};
    const prompt = list.previousElementSibling;  // the question's paragraph
    const legend = el("legend", {class: "predict-question"});
    if (prompt && prompt.tagName === "P") { legend.append(...prompt.childNodes); prompt.remove(); }
    q.buttons = q.fragments.map((code, i) => {
      const button = el("button", {type: "button", class: "predict-choice", "aria-pressed": "false"},
                        code.cloneNode(true));
      button.addEventListener("click", () => pick(q, i));
      return button;
    });
    q.verdict = el("div", {class: "predict-verdict", role: "status"});
    const form = el("fieldset", {class: "predict-form"}, legend,
                    el("div", {class: "predict-choices-buttons"}, ...q.buttons), q.verdict);
    list.replaceWith(form);
    if (output) {
      q.pending = el("p", {class: "predict-pending"}, L.pending);
      output.before(q.pending);
    }
    questions.push(q);
    const saved = store ? store.getItem(key(q)) : null;
    show(q, saved !== null && q.buttons[Number(saved)] ? Number(saved) : null);
  }
  if (!questions.length) return;

  const count = el("p", {class: "predict-count"});
  const reset = el("button", {type: "button", class: "md-button predict-reset"}, L.reset);
  reset.addEventListener("click", () => {
    for (const q of questions) {
      if (store) store.removeItem(key(q));
      show(q, null);
    }
    questions[0].buttons[0].focus();
  });
  tally.append(count, reset);
  tally.hidden = false;
  update();

  function pick(q, i) {
    if (q.picked !== null) return;  // the first answer counts; "Clear my answers" starts again
    if (store) { try { store.setItem(key(q), String(i)); } catch (err) { /* full or refused: keep it in the page */ } }
    show(q, i);
    update();
  }

  function show(q, i) {
    q.picked = i;
    const done = i !== null;
    q.buttons.forEach((button, j) => {
      button.setAttribute("aria-pressed", String(j === i));
      button.classList.toggle("is-answer", done && j === q.answer);
      button.classList.toggle("is-wrong", done && j === i && i !== q.answer);
      if (done) button.setAttribute("aria-disabled", "true");
      else button.removeAttribute("aria-disabled");
    });
    q.verdict.replaceChildren();
    if (done) {
      const right = i === q.answer;
      const line = (j, lead) => el("p", {}, ...(lead ? [el("strong", {}, lead), " "] : []),
                                   q.fragments[j].cloneNode(true), " — ", ...q.whys[j].cloneNode(true).childNodes);
      q.verdict.append(line(i, right ? L.correct : L.wrong));
      if (!right) q.verdict.append(el("p", {}, L.printed, " ", q.fragments[q.answer].cloneNode(true), " — ",
                                       ...q.whys[q.answer].cloneNode(true).childNodes));
    }
    q.verdict.classList.toggle("is-right", done && i === q.answer);
    q.verdict.classList.toggle("is-wrong", done && i !== q.answer);
    if (q.output) q.output.classList.toggle("predict-concealed", !done);
    if (q.pending) q.pending.hidden = done;
  }

  function update() {
    const answered = questions.filter(q => q.picked !== null);
    const right = answered.filter(q => q.picked === q.answer).length;
    count.textContent = L.tally.replace("{right}", right).replace("{answered}", answered.length)
                               .replace("{total}", questions.length);
  }
})();
