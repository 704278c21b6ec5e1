/* The words a search found, highlighted on the page it opened (overrides/partials/search-lazy.html
   loads this when the address had ?h=, the terms Material's result link carries), in place of
   Material's highlighter, which marked every term anywhere: stop words, and pieces inside other
   words (p[a]th, [to]rch), thousands of marks on a page where a pasted error message landed.

   Here a mark is a whole word of the page that the search found: a word equal to a term, or one
   that is the term with an ending (the term is a stem: devic → device, devices), or in Korean a
   word with the same stem as the word typed (텐서를 → 텐서는, 옮기려면 → 옮기기). Japanese has no spaces between words: a term of two characters or more is
   marked where it occurs in Japanese text. Terms of one letter or digit, and code stop words,
   are not marked. A result that opened a section marks that section only. A button at the top of
   the article clears the marks, as does Escape. */
(() => {
  const terms = [...new Set((window.__highlight || "").normalize("NFKC").toLowerCase().split(/\s+/))]
    .filter(t => t && !/[\ue000-\uf8ff]/.test(t) && [...t].length > 1)
  const article = document.querySelector(".md-content article")
  if (!terms.length || !article)
    return

  const lang = document.documentElement.lang
  const LABEL = {en: "Clear highlights", ja: "ハイライトを消す", ko: "강조 표시 지우기"}
  const KANA_KANJI = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}ー]/u
  const ENDING = {latin: 3, hangul: 4}  // the most characters a word may add to a term it matches
  const WORD = /[\p{L}\p{N}_]+/gu

  // Korean: the term is a word as typed (텐서를, 옮기려면); a page's word matches when the two
  // share a stem of two syllables or more (or the whole of the shorter) and differ only in endings.
  const sameKoreanWord = (w, t) => {
    const a = [...w], b = [...t]
    let n = 0
    while (n < a.length && n < b.length && a[n] === b[n]) n++
    return (n >= 2 || n === Math.min(a.length, b.length)) && n > 0
      && a.length - n <= ENDING.hangul && b.length - n <= ENDING.hangul
  }
  const found = word => {
    const w = word.toLowerCase()
    return terms.some(t => {
      if (w === t)
        return true
      if (/[\p{sc=Hangul}]/u.test(t))
        return sameKoreanWord(w, t)
      const more = w.length - t.length
      return w.startsWith(t) && /^[a-z]/.test(t) && t.length >= 3 && more <= ENDING.latin
    })
  }
  const japanese = terms.filter(t => KANA_KANJI.test(t))
  const jaPattern = japanese.length
    ? new RegExp(japanese.map(t => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).sort((a, b) => b.length - a.length).join("|"), "gi")
    : null

  // [start, end] of each whole word to mark in a text
  function spans(text) {
    const out = []
    for (const m of text.matchAll(WORD)) {
      if (KANA_KANJI.test(m[0]) && jaPattern) {
        for (const j of m[0].matchAll(jaPattern))
          out.push([m.index + j.index, m.index + j.index + j[0].length])
      } else if (found(m[0].normalize("NFKC"))) {
        out.push([m.index, m.index + m[0].length])
      }
    }
    return out
  }

  // A result that opened a section marks that section only (from its heading to the next heading
  // of its level or above): a pasted error message shares its words with most of the page.
  const heading = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)))
  const level = heading && /^H[1-6]$/.test(heading.tagName) ? Number(heading.tagName[1]) : 0
  const end = level && [...article.querySelectorAll("h1, h2, h3, h4, h5, h6")]
    .find(h => heading.compareDocumentPosition(h) & Node.DOCUMENT_POSITION_FOLLOWING && Number(h.tagName[1]) <= level)
  const inSection = node => !level || ((heading.compareDocumentPosition(node) & Node.DOCUMENT_POSITION_FOLLOWING
    || heading.contains(node)) && !(end && end.compareDocumentPosition(node) & Node.DOCUMENT_POSITION_FOLLOWING))

  const marks = []
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT, {
    acceptNode: node => node.parentElement.closest("script, style, mark, button, .headerlink") || !inSection(node)
      ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
  })
  const nodes = []
  for (let node = walker.nextNode(); node; node = walker.nextNode())
    nodes.push(node)
  for (const node of nodes) {
    const text = node.textContent, hits = spans(text)
    if (!hits.length)
      continue
    const parts = []
    let at = 0
    for (const [start, end] of hits) {
      parts.push(text.slice(at, start))
      const mark = document.createElement("mark")
      mark.dataset.mdHighlight = ""
      mark.textContent = text.slice(start, end)
      marks.push(mark)
      parts.push(mark)
      at = end
    }
    parts.push(text.slice(at))
    node.replaceWith(...parts.filter(p => p !== ""))
  }
  if (!marks.length)
    return

  const button = document.createElement("button")
  button.type = "button"
  button.className = "md-button search-highlight-clear"
  button.textContent = LABEL[lang] || LABEL.en
  const clear = () => {  // the page's scripts may have copied marked blocks since (answers revealed)
    for (const mark of document.querySelectorAll("mark[data-md-highlight]"))
      mark.replaceWith(mark.textContent)
    article.normalize()
    button.remove()
    removeEventListener("keydown", onKey)
  }
  const onKey = ev => { if (ev.key === "Escape" && !document.querySelector("#__search:checked")) clear() }
  button.addEventListener("click", clear)
  addEventListener("keydown", onKey)
  article.prepend(button)
})()
