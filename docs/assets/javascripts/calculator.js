/* The memory calculator on 08 (coursebuild/render/calculator.py writes its form, hidden, after the cell
   that prints the page's bytes per parameter, and a table of common sizes for readers without
   JavaScript). This script shows the form in place of the table and multiplies: the bytes per parameter
   of each part come from the page (data-per-parameter, printed by the notebook's own `estimate`), so
   the script has no formula of its own. The total's bytes go in data-total. Nothing leaves the page. */
(() => {
  const root = document.querySelector("[data-calculator]");
  const form = root?.querySelector("form");
  if (!form) return;
  const data = form.dataset;
  const perParameter = JSON.parse(data.perParameter);
  const units = Object.entries(JSON.parse(data.units)).sort((a, b) => b[1] - a[1]);  // [word, exponent]
  const accepted = JSON.parse(data.accepted);
  const lang = document.documentElement.lang || data.lang;
  const digits = new Intl.NumberFormat(lang);
  const figure = new Intl.NumberFormat(lang, {maximumSignificantDigits: 3});
  const { params, dtype, mode, optimizer, mixed } = form.elements;
  const count = form.querySelector(".calc-count");
  const cells = part => [form.querySelector(`[data-part="${part}"]`), form.querySelector(`[data-part-gib="${part}"]`)];
  const total = form.querySelector("[data-total]");
  const totalGib = form.querySelector("[data-total-gib]");
  const PARTS = ["weights", "gradients", "optimizer", "master"];
  const MAX = 1e14;  // 100 trillion parameters: every byte count stays an exact integer

  // "7B", "1.3b", "70億", "70억", "125 M", "7,000,000,000", "７０億" (full-width, from an input method)
  const parse = text => {
    const match = text.normalize("NFKC").replace(/[\s,_]/g, "").match(/^(\d+(?:\.\d+)?|\.\d+)(?:e(\d+))?(\D*)$/i);
    if (!match) return null;
    const word = match[3];
    const exponent = word === "" ? 0 : accepted[word] ?? accepted[word.toUpperCase()];
    if (exponent === undefined) return null;
    const n = Math.round(Number(match[1]) * 10 ** (Number(match[2] || 0) + exponent));
    return n >= 1 && n <= MAX ? n : null;
  };
  const short = n => {
    for (const [word, exponent] of units)
      if (n >= 10 ** exponent) return new Intl.NumberFormat(lang, {maximumFractionDigits: 4, useGrouping: false})
        .format(n / 10 ** exponent) + word;
    return digits.format(n);
  };
  // as calculator.py's number(): three significant digits below 1,000, whole numbers above
  const format = value => value >= 1000 ? digits.format(Math.round(value)) : figure.format(value);
  const gigabytes = bytes => format(bytes / 1e9);
  const gibibytes = bytes => format(bytes / 2 ** 30);

  const update = () => {
    const training = mode.value === "training";
    optimizer.disabled = !training;
    mixed.disabled = !training || dtype.value === "float32";
    const n = parse(params.value);
    params.setAttribute("aria-invalid", n === null ? "true" : "false");
    if (n === null) {
      count.textContent = data.invalid;
      for (const part of PARTS) for (const cell of cells(part)) cell.textContent = "–";
      total.textContent = totalGib.textContent = "–";
      total.dataset.total = "";  // no figure: nothing to read
      return;
    }
    count.textContent = data.count.replace("{digits}", digits.format(n)).replace("{short}", short(n));
    const key = [dtype.value, training ? 1 : 0, training ? optimizer.value : "",
                 training && !mixed.disabled && mixed.checked ? 1 : 0].join("|");
    let sum = 0;
    PARTS.forEach((part, i) => {
      const bytes = n * perParameter[key][i];
      sum += bytes;
      const [gb, gib] = cells(part);
      gb.textContent = gigabytes(bytes);
      gib.textContent = gibibytes(bytes);
    });
    total.textContent = gigabytes(sum);
    totalGib.textContent = gibibytes(sum);
    total.dataset.total = String(sum);
  };

  for (const button of form.querySelectorAll("[data-params]"))
    button.addEventListener("click", () => {
      params.value = short(Number(button.dataset.params));
      update();
    });
  // While an input method composes (70おく before 70億), the text is not the reader's yet: wait for the commit.
  form.addEventListener("input", ev => ev.isComposing || update());
  form.addEventListener("compositionend", update);
  form.addEventListener("change", update);
  form.addEventListener("submit", ev => ev.preventDefault());  // Enter in the field: nothing to send
  root.querySelector(".calc-static")?.remove();
  form.hidden = false;
  update();
})();
