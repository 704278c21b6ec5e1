/* Material's search worker, with these changes (coursebuild/search/index.py points each page at it;
   coursebuild/search/__init__.py gives the design in a paragraph):

   1. The index of the page's language only (search/search_index.<lang>.json, written by the
      build): results stay in the reader's language, and a first search downloads a third.
      The page starts this worker only when the reader opens search (overrides/partials/search-lazy.html).
   2. Japanese queries are segmented with the TinySegmenter that segmented the index. Material
      segments the pages but looks a query up whole (mkdocs-material #3112), so テンソルを or
      モデルをGPUに移動 found nothing. Pages and queries are folded with NFKC.
   3. Korean words are reduced to stems, in the index and in the query alike: 옮기다, 옮겨요,
      옮깁니다 and 옮긴 all become 옮기 (and 복사되나요 복사), 텐서를 and 텐서는 become 텐서.
   4. Synonyms (coursebuild/search/synonyms/<lang>.yml, in the index's config): every spelling of a group is
      marked with the group's key, in the pages and in the query alike, so that インプレース finds
      in-place, 데이터 병렬 DataParallel and "not enough memory" the page on out of memory.
   5. Japanese and Korean: character bigrams of the page's text beside its words, and of the query
      beside its words, each weighing a fraction of a word (spacing variants, unknown endings).
   6. Code: indexed whole beside its parts (torch.cuda.is_available, .to()); an identifier in the
      query is looked up whole and weighs most.
   7. lunr is asked the plan's clauses (plan()), any of them: a query is never empty while one of
      its words is on a page. Pages that contain the query as typed come first, and a section
      whose heading is the message pasted comes first in its page.
   Also, in every language, the query goes through the pipeline that the index went through: stop
   words are left out (English ones in ja and ko queries too: a pasted error message) and words are
   stemmed as the index's are (hiding finds hide).

   Material's worker runs unchanged underneath (loaded with importScripts); this file only edits
   the messages it receives and the lunr it uses. tests/search_queries.yml measures the result. */
"use strict"

const params = new URL(self.location.href).searchParams
const LANG = params.get("lang") || "en"
const INDEX = new URL(`../../../search/search_index.${LANG}.json`, self.location.href)

const SETUP = 0, QUERY = 2, RESULT = 3  // Material's message types (integrations/search/worker/message)

/* ------------------------------------------------------------------------------ Korean stems */

const SYLLABLE = 0xac00
const isHangul = c => c >= 0xac00 && c <= 0xd7a3
const parts = ch => {
  const n = ch.charCodeAt(0) - SYLLABLE
  return [Math.floor(n / 588), Math.floor((n % 588) / 28), n % 28]
}
const join = (lead, vowel, tail) => String.fromCharCode(SYLLABLE + lead * 588 + vowel * 28 + tail)

// Particles and verb endings, longest first. Stripping repeats, so 옮겨지지 → 옮겨지 → 옮겨 → 옮기.
const KO_ENDINGS = `
  에서는 에서도 에서의 에서 에게는 에게 께서 으로는 으로도 으로써 으로 로는 로도 로써 로 까지 부터 보다 처럼 이랑 랑
  때 만으로는 만으로 만큼 마다 이라도 이나 이란 이며 이고 와는 과는 와의 과의 와 과 의 을 를 은 는 이 가 도 에는 에도 에 만 나 란
  입니다 합니다 됩니다 습니다 니다 했습니다 었습니다 았습니다 하나요 되나요 나요 는가요 까요 을까 할까 인가요
  세요 으세요 해요 돼요 어요 아요 예요 이에요 에요 죠 지요 요 다 이다 한다 된다 는다 ㄴ다
  려면 으려면 하려면 면 으면 하면 되면 는데 은데 지만 고 하고 되고 서 해서 돼서 어서 아서 니까 으니까 므로 으므로
  기 하기 되기 게 하게 되게 지 하지 되지 는지 은지 ㄴ지 던 었던 았던 했던 는 하는 되는 은 한 된 할 될 을
  었 았 였 했 됐 겠 시 으시
`.trim().split(/\s+/).filter(e => !/[ㄱ-ㅎ]/.test(e)).sort((a, b) => b.length - a.length)

// Final consonants that are endings fused into the verb: 옮긴 옮길 옮깁(니다) 옮겼 → 옮기 / 옮겨
const FUSED_TAILS = new Set([4 /* ㄴ */, 8 /* ㄹ */, 17 /* ㅂ */, 20 /* ㅆ */])
// Contracted vowels back to the stem's: 옮겨 → 옮기, 해 → 하, 돼 → 되, 봐 → 보, 줘 → 주
const CONTRACTED = {6: 20 /* ㅕ → ㅣ */, 1: 0 /* ㅐ → ㅏ (해 → 하) */, 10: 11 /* ㅙ → ㅚ */, 9: 8 /* ㅘ → ㅗ */, 14: 13 /* ㅝ → ㅜ */}

function koStem(word) {
  if (!word || !isHangul(word.charCodeAt(word.length - 1)))
    return word
  const hangul = [...word].filter(ch => isHangul(ch.charCodeAt(0))).length
  let w = word
  for (let round = 0; round < 6; round++) {
    let next = w
    const ending = KO_ENDINGS.find(e => w.length > e.length && w.endsWith(e))
    if (ending) {
      next = w.slice(0, -ending.length)
    } else if (w.length > 1 && isHangul(w.charCodeAt(w.length - 1))) {
      const [lead, vowel, tail] = parts(w.at(-1))
      if (FUSED_TAILS.has(tail))
        next = w.slice(0, -1) + join(lead, vowel, 0)
      else if (tail === 0 && vowel in CONTRACTED && hangul > 1)
        next = w.slice(0, -1) + join(lead, CONTRACTED[vowel], 0)
    }
    if (next === w || !next)
      break
    w = next
    if (!isHangul(w.charCodeAt(w.length - 1)))  // a particle after a code name: GPU로 → gpu
      break
  }
  // a noun made a verb: 이동하(다), 복사되(나요), 이동시키(다) → 이동, 복사
  const light = w.match(/^(.*[가-힣].*[가-힣])(?:하|되|시키|시켜|당하)$/)
  return light ? light[1] : w
}

/* --------------------------------------------------------------------------------- synonyms */

// Each spelling of a group, as the index's pipeline leaves it (segmented, stop words out, stemmed)
// and joined without spaces, maps to the group's key: a word no reader types, indexed beside the
// words it stands for (search/search_index.<lang>.json holds the groups, from the build).
// A spelling that stop words shrink to a single word (どこでも動く → 動く, any machine → machin)
// would mark every use of that word: it is left out, and listed in `skipped` (tests/test_search.py).
const synonyms = {keys: new Map(), prefixes: new Set(), shown: new Map(), typed: new Map(), skipped: []}

function compileSynonyms(groups) {
  groups.forEach((group, n) => {
    const key = `\ue000${n}\ue001`  // private use: never typed, never a prefix of another key
    for (const spelling of group) {
      const all = piped(String(spelling))
      const kept = all.flatMap(([, out]) => out)
      const joined = kept.join("")
      if (!kept.length || (kept.length < 2 && all.some(([, out]) => !out.length))) {
        synonyms.skipped.push(`${spelling} (${kept.join(" ") || "nothing"} is left)`)
        continue
      }
      if (synonyms.keys.has(joined))
        continue  // a spelling that stems to one already taken keeps its first group
      synonyms.keys.set(joined, key)
      for (let i = 1; i <= joined.length; i++)
        synonyms.prefixes.add(joined.slice(0, i))
    }
  })
}

// Where a spelling starts in `stems`, leftmost and longest first: Map(index -> [key, length]).
function findSynonyms(stems) {
  const found = new Map()
  for (let i = 0; i < stems.length;) {
    let joined = "", best = null
    for (let j = i; j < stems.length; j++) {
      joined += stems[j]
      if (!synonyms.prefixes.has(joined))
        break
      if (synonyms.keys.has(joined))
        best = [synonyms.keys.get(joined), j + 1 - i]
    }
    if (best)
      found.set(i, best)
    i += best ? best[1] : 1
  }
  return found
}

// The index's pipeline, last step: each token of a spelling gets the key beside it, with its
// position, so that a result highlights the words the page uses.
let marked = null, markedAt = null
function markSynonyms(token, i, tokens) {
  if (tokens !== marked) {
    marked = tokens
    markedAt = new Map()
    for (const [start, [key, length]] of findSynonyms(tokens.map(String)))
      for (let j = start; j < start + length; j++)
        markedAt.set(j, key)
  }
  const key = markedAt.get(i)
  return key ? [token, token.clone(() => key)] : token
}

/* ---------------------------------------------------------------------------------- bigrams */

const BIGRAMS = LANG === "ja" || LANG === "ko"
const CJK = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}ー]/u
const GRAM = "\ue002"  // private use: a bigram is never a word typed or a prefix of one
const CODE = "\ue003"  // nor is code as written (only identifiers typed find it)

function bigrams(text) {
  const chars = [...text], out = []
  for (let i = 0; i + 1 < chars.length; i++)
    if (CJK.test(chars[i]) && CJK.test(chars[i + 1]))
      out.push(GRAM + chars[i] + chars[i + 1])
  return out
}

// The index's pipeline, last step (ja, ko): beside each word, the bigrams that start in it, taken
// from the page's text as written (before stems and stop words), across words written without a
// space between them (Japanese segments). Each bigram keeps its word's position: a result
// highlights the page's word. Material's tokenizer records where each token is in lunr.tokenizer.table.
let field = "", gramsOf = null, gramsAt = null
function span(token) {
  const position = token.metadata && token.metadata.position
  const row = typeof position === "number" && self.lunr.tokenizer.table[position >>> 20]
  const entry = row && row[position & 0xfffff]
  return entry === undefined ? null : [entry >>> 12, (entry >>> 2) & 1023]
}
function addBigrams(token, i, tokens) {
  if (tokens !== gramsOf) {
    gramsOf = tokens
    gramsAt = new Map()
    const words = []
    let last = -1
    tokens.forEach((t, j) => {
      const at = span(t)
      if (at && at[0] !== last && !String(t).startsWith("\ue000")) {
        words.push([j, ...at])
        last = at[0]
      }
    })
    words.sort((a, b) => a[1] - b[1])
    for (let k = 0; k < words.length; k++) {
      const [j, start, length] = words[k]
      let text = field.slice(start, start + length)
      const next = words[k + 1]
      if (next && next[1] === start + length)  // the next word follows without a space
        text += field.slice(next[1], next[1] + 1)
      const grams = bigrams(text)
      if (grams.length)
        gramsAt.set(j, grams)
    }
  }
  const grams = gramsAt.get(i)
  return grams ? [token, ...grams.map(gram => token.clone(() => gram))] : token
}

// Code as written, beside the words the separator splits it into: torch.cuda.is_available (and
// cuda.is_available) for torch.cuda.is_available(), and .to() for every call of a method `to`.
// Each gets the position of its last word, so that a result highlights that word.
function withCode(tokens) {
  if (!field)
    return tokens
  const spans = tokens.map(span)
  const extra = []
  let run = []
  tokens.forEach((token, i) => {
    const at = spans[i]
    if (!at)
      return
    const [start, length] = at, end = start + length
    const before = run.length && spans[run.at(-1)], gap = before && start - before[0] - before[1]
    if (!(before && (gap === 0 || (gap === 1 && field[start - 1] === "."))))
      run = []  // not code that goes on: DataParallel, torch.cuda
    run.push(i)
    for (let k = 0; k + 1 < run.length; k++) {
      const code = field.slice(spans[run[k]][0], end)
      if (/^[A-Za-z_][\w.]*$/.test(code))
        extra.push(token.clone(() => CODE + code.toLowerCase()))
    }
    if (field[start - 1] === "." && field[end] === "(")
      extra.push(token.clone(() => `${CODE}.${token}()`))
  })
  return tokens.concat(extra)
}

// English stems words (hiding, hide → hide) but not code: set_default_device stays whole.
const stemCode = token => /[_\d.]/.test(String(token)) ? token : self.lunr.stemmer(token)

/* ------------------------------------------------------------------------------------ query */

const HIRAGANA = /^[\u3040-\u309f\u30fc]+$/
let queryPipeline = null  // the index's pipeline without markSynonyms, set when the index is built

function words(text) {
  const lunr = self.lunr
  const out = []
  for (let piece of text.normalize("NFKC").split(lunr.tokenizer.separator)) {
    piece = piece.replace(/^[^\p{L}\p{N}_]+|[^\p{L}\p{N}_]+$/gu, "")  // 달라짐? → 달라짐, 'cuda' → cuda
    if (!piece)
      continue
    const segmenter = lunr.segmenter
    if (LANG === "ja" && segmenter && /^[MHIK]$/.test(segmenter.ctype_(piece)))
      out.push(...segmenter.segment(piece).map(s => s.trim()).filter(Boolean))
    else
      out.push(piece)
  }
  return out
}

// Each word as the index's pipeline leaves it (stop words give nothing), one by one, so that a
// group's key can stand for the words as typed.
const piped = text => words(text).map(w => [w, queryPipeline
  ? queryPipeline.run([new self.lunr.Token(w.toLowerCase())]).map(String)
  : [w.toLowerCase()]])

// What the worker asks lunr for a query: `shown`, the words Material shows (and hands to the page
// as ?h=), and `clauses`, what lunr looks up for each of them (lunr.Query clauses, see plan()).
function terms(query) {
  const all = piped(query)
  const typed = all.map(([w]) => w)
  const at = all.flatMap(([, out], i) => out.length ? [i] : [])  // the words left, by position
  const found = findSynonyms(at.map(i => all[i][1].join("")))
  synonyms.shown.clear()
  synonyms.typed.clear()
  let kept = []
  for (let i = 0; i < at.length; i++) {
    const match = found.get(i)
    if (match) {  // the group's key in place of its spelling
      const [key, length] = match
      const span = typed.slice(at[i], at[i + length - 1] + 1)
      synonyms.shown.set(key, {typed: span.join(LANG === "ja" ? "" : " "),
                               stems: at.slice(i, i + length).map(k => all[k][1].join(" ")).join(" ")})
      kept.push(key)
      i += length - 1
    } else {
      kept.push(...all[at[i]][1])
      for (const stem of all[at[i]][1])
        synonyms.typed.set(stem, typed[at[i]])
    }
  }
  kept = kept.filter(w => /[\p{L}\p{N}_]/u.test(w))
  if (LANG !== "en")  // English stop words in a pasted error message: the, to, on, be
    kept = kept.filter(w => !/^[a-z]+$/.test(w) || self.lunr.stopWordFilter(new self.lunr.Token(w)))
  if (LANG === "ja") {  // particles and endings (を, に, する, される): keep the content words
    const content = kept.filter(w => !HIRAGANA.test(w))
    if (content.length)
      kept = content
  }
  // Nothing left (a query of stop words only): search what was typed.
  return [...new Set(kept.length ? kept : typed.map(w => w.toLowerCase()))]
}

// Identifiers as people paste them: torch.set_default_device, set_device, memory_allocated,
// torch.cuda.is_available(), DataParallel. Each is looked up whole and weighs most.
const IDENTIFIER = /[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+|[A-Za-z]\w*_\w*|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*/g
// A lowercase name before the first dot is the reader's own variable (tensor.to, x.numpy, loss.item),
// unless it is one of these modules; a capital names a class (Tensor.to). The index folds case, so
// `tensor.to` would otherwise be looked up whole as Tensor.to, which other pages name in passing.
const MODULES = new Set(["torch", "nn", "f", "np", "cuda", "mps", "xpu", "accelerator", "backends", "optim",
  "utils", "data", "distributed", "dist", "multiprocessing", "mp", "functional", "amp", "autograd"])
function identifiers(query) {
  const text = query.normalize("NFKC")
  const out = []
  for (const found of text.matchAll(IDENTIFIER)) {
    const name = found[0].toLowerCase(), parts = name.split(".")
    const variable = parts.length > 1 && /^[a-z_]/.test(found[0]) && !MODULES.has(parts[0])
    for (let k = variable ? 1 : 0; k + 1 < parts.length; k++)  // torch.cuda.is_available, cuda.is_available
      out.push(parts.slice(k).join("."))
    out.push(...parts.filter(part => part.includes("_")))
    if (parts.length > 1 && text[found.index + found[0].length] === "(")
      out.push(`.${parts.at(-1)}()`)  // a method call: .to(), .cuda()
  }
  return out.filter(name => name.length > 2)
}

// The plan of a query: each word (a stem, with a trailing wildcard as Material looks words up,
// so that 텐서 finds 텐서를 and hide hiding), each synonym key, each identifier whole (boosted), and,
// in Japanese and Korean, the character bigrams of what was typed, each weighing a fraction of a
// word: written with or without a space, with a particle the stemmer does not know or segmented
// otherwise than the page, a word still shares most of its bigrams with the page's.
const BOOST = {word: 1, identifier: 8, method: 1, bigram: 0.3}  // .to(): a call, not a name
const typedAs = word => ((synonyms.shown.get(word) || {}).typed || word).normalize("NFKC").toLowerCase()
function plan(query) {
  const ids = new Set(identifiers(query))
  // a name the segmenter may cut into pieces, as a word (or its synonym group), whole: asked before
  // the query's own terms, since terms() starts the query's synonym groups afresh
  const whole = new Map([...ids].filter(id => !/[.()]/.test(id)).map(id => [id, terms(id)]))
  const shown = terms(query)
  const clauses = []
  // A piece of an identifier the query names (register and _ of register_buffer, as a Japanese
  // segmenter cuts register_bufferにしないと) is found by the identifier, whole; alone it finds
  // set_epoch for set_default_device. A bare number (the 1 of cuda:1) is no word of prose.
  const names = [...ids].filter(id => !id.startsWith("."))
  const piece = word => !ids.has(word) && (/^[_\d]+$/.test(word)
    || /[a-z]/.test(word) && names.some(id => id.includes(word.replace(/[^\x00-\x7f]+/g, ""))))
  for (const word of shown.filter(w => !piece(w))) {
    if (word.startsWith("\ue000"))
      clauses.push({term: word, boost: BOOST.word, wildcard: 0, origin: word})
    else if (ids.has(word))
      clauses.push({term: word, boost: BOOST.identifier, wildcard: 0, origin: word})
    else  // one character (두, 쓰, 뭐) begins too many words to stand for them
      clauses.push({term: word, boost: BOOST.word, wildcard: [...word].length > 1 ? WILDCARD_TRAILING : 0, origin: word})
  }
  for (const id of ids) {
    if (shown.includes(id))
      continue
    const origin = shown.find(w => id.split(/[.()]/).some(part => part.startsWith(w))) || null
    clauses.push({term: CODE + id, boost: id.startsWith(".") ? BOOST.method : BOOST.identifier, wildcard: 0, origin})
    for (const word of (whole.get(id) || []).filter(w => !clauses.some(c => c.term === w)))
      clauses.push({term: word, boost: BOOST.identifier, wildcard: 0, origin})
  }
  if (BIGRAMS) {
    // Not the bigrams of a spelling a synonym group matched: its group finds the pages that use it,
    // and its bigrams only add pages that share syllables (インプレース: イン, レー, ース everywhere).
    const grouped = [...synonyms.shown.values()].map(group => group.typed.normalize("NFKC").toLowerCase())
    for (const word of query.normalize("NFKC").toLowerCase().split(/\s+/)) {
      // nor bigrams of kana endings and particles alone (ない, るか, どう): every page has them
      for (const gram of bigrams(word).filter(gram => !grouped.some(typed => typed.includes(gram.slice(1)))
                                                     && !(LANG === "ja" && HIRAGANA.test(gram.slice(1)))))
        // filed under the shown word it is part of, if any
        clauses.push({term: gram, boost: BOOST.bigram, wildcard: 0,
                      origin: shown.find(w => typedAs(w).includes(gram.slice(1))) || null})
    }
  }
  return {shown, clauses}
}

// Material shows a result's query terms: the missing ones struck through, as the reader typed
// them (not a group's key); the found ones in the link that highlights them on the page
// (docs/assets/javascripts/search-highlight.js): stems in English and Japanese segments, so that
// devic marks device and devices; Korean words as typed, whose stem the page's words share
// (텐서를 marks 텐서는; the stemmer cuts deeper than a reader would: 텐서 → 텐).
function shownTerms(terms) {
  const out = {}
  for (const [term, found] of Object.entries(terms || {})) {
    const group = synonyms.shown.get(term)
    const word = group ? (found && LANG !== "ko" ? group.stems : group.typed)
      : (LANG === "ko" && synonyms.typed.get(term)) || term
    out[word] = found
  }
  return out
}

/* ------------------------------------------------------------------------- exact phrases first */

// lunr scores words, not phrases: a pasted error message ranked the pages that say "tensor" and
// "device" most often above the one that shows the message. Pages that contain the query as typed
// (or its first words, at least three) come first; lunr's order is kept among equals. A query of
// one or two plain words is left to lunr, which knows its synonyms (パラメータ and バッファ find a
// page that writes パラメーター), unless it is code (torch.set_default_device), found as typed.
const plain = text => text.replace(/<[^>]*>/g, "").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
  .replace(/&quot;/g, '"').replace(/&#0?39;/g, "'").replace(/&amp;/g, "&")
const squeeze = text => text.normalize("NFKC").toLowerCase().replace(/\s+/g, "")
const texts = new Map()  // location -> squeezed title and text

function phrases(query) {
  const words = query.normalize("NFKC").trim().split(/\s+/).filter(Boolean)
  const out = []
  const least = /[._:()[\]=]/.test(query) ? Math.min(3, words.length) : 3
  for (let n = words.length; n >= least; n--) {
    const phrase = squeeze(words.slice(0, n).join(" "))
    if (phrase.length >= 4)
      out.push([n, phrase])
  }
  return out
}

function phraseFirst(items, query) {
  const wanted = phrases(query)
  if (!wanted.length)
    return items
  const score = group => {
    for (const [n, phrase] of wanted)
      if (group.some(item => (texts.get(item.location) || "").includes(phrase)))
        return n
    return 0
  }
  return items.map((group, i) => [score(group), i, group])
    .sort((a, b) => b[0] - a[0] || a[1] - b[1])
    .map(([, , group]) => group)
}

// A section named after what was pasted (a heading that is an error message, or part of one):
// first in its page's group, with the group's top score so that Material shows it rather than
// folding it under "N more on this page", and its page first.
const titles = new Map()  // location -> squeezed title
function namedFirst(items, query) {
  const typed = squeeze(query)
  const named = item => {
    const title = titles.get(item.location) || ""
    return item.location.includes("#") && title.length >= 12 && (typed.includes(title) || (typed.length >= 12 && title.includes(typed)))
  }
  const out = items.map(group => {
    const i = group.findIndex(named)
    if (i < 0)
      return group
    const top = Math.max(...group.map(item => item.score))
    return [{...group[i], score: top + 1e-6}, ...group.filter((_, j) => j !== i)]
  })
  return [...out.filter(g => g[0].score > 0 && named(g[0])), ...out.filter(g => !(g[0].score > 0 && named(g[0])))]
}

const post = self.postMessage.bind(self)
let asked = "", asking = null
// Material weighs a title word as 1000 words of text: one title that said 쓰는 outranked the page
// whose text explains set_default_device. 30 (and 0.6 below) did best on the tuned part of the
// query set among the values tried (10, 30, 100; 1, 0.6, 0.4).
const TITLE_BOOST = 30
// A page's own entry holds all the text Material's parser did not put under a heading (on a
// notebook page, most of it) and Material raises a page above its sections: lowered a little,
// so that the section that answers is not outranked by a long page that mentions every word.
const PAGE_WEIGHT = 0.6
const WILDCARD_TRAILING = 2  // lunr.Query.wildcard.TRAILING
self.postMessage = message => {
  if (message && message.type === RESULT && asked) {
    const items = namedFirst(phraseFirst(message.data.items, asked), asked)
      .map(group => group.map(item => ({...item, terms: shownTerms(item.terms)})))
    const suggest = message.data.suggest && message.data.suggest.filter(term => !term.startsWith("\ue000"))
    message = {...message, data: {...message.data, items, ...suggest && {suggest}}}
  }
  post(message)
}

/* --------------------------------------------------------------------- the index, per language */

// Material loads lunr's language support with importScripts when it receives the index; wrap the
// Korean and English pipelines then, before it builds the index with them.
const load = self.importScripts.bind(self)
self.importScripts = (...urls) => {
  const done = load(...urls)
  const lunr = self.lunr
  if (lunr && lunr.ko && !lunr.ko.stemmed) {
    const ko = lunr.ko
    const stem = token => token.update(koStem)
    lunr.Pipeline.registerFunction(stem, "stemmer-ko-query")
    lunr.ko = Object.assign(function () {
      ko.call(this)
      this.pipeline.add(stem)
    }, ko, {stemmed: true})
  }
  return done
}

// Material builds the index with lunr's Builder: before its first page, keep a copy of the builder's
// pipeline for the query (queryPipeline), compile the synonym groups with it, then add markSynonyms
// as the pipeline's last step. Queries wait until the index is built.
let groups = [], built
const indexBuilt = new Promise(resolve => { built = resolve })

function wrapBuilder(lunr) {
  const add = lunr.Builder.prototype.add
  const build = lunr.Builder.prototype.build
  lunr.Pipeline.registerFunction(markSynonyms, "synonyms")
  lunr.Pipeline.registerFunction(addBigrams, "bigrams")
  lunr.Pipeline.registerFunction(stemCode, "stemmer-code")
  lunr.Builder.prototype.add = function (...args) {
    if (!queryPipeline) {
      const tokenize = this.tokenizer
      this.tokenizer = (text, metadata) => {
        field = typeof text === "string" ? text : ""
        return withCode(tokenize(text, metadata))
      }
      if (LANG === "en")
        this.pipeline.add(stemCode)
      queryPipeline = lunr.Pipeline.load(this.pipeline.toJSON())
      compileSynonyms(groups)
      this.pipeline.add(markSynonyms)
      if (BIGRAMS)
        this.pipeline.add(addBigrams)
    }
    return add.apply(this, args)
  }
  lunr.Builder.prototype.build = function (...args) {
    try {
      return built.index = build.apply(this, args)  // built.index: to look into from a browser's devtools
    } finally {
      built()
    }
  }
  // Material asks lunr with the words it shows; lunr is asked the plan's clauses instead, and
  // what each clause matched is filed under the word it stands for, so that Material counts a word
  // found (and highlights it) when its stem, synonym or bigrams were.
  const search = lunr.Index.prototype.search
  lunr.Index.prototype.search = function (text) {
    if (!asking)
      return search.call(this, text)
    const {clauses} = asking
    const lookups = clauses.flatMap(c => expanded(this, c).map(term => [term, c.boost]))
    // (lunr answers a query of no term with every page)
    const results = lookups.length ? this.query(q => {
      for (const [term, boost] of lookups)
        q.term(term, {boost, usePipeline: false})
    }) : []
    for (const result of results) {
      const metadata = {}, seen = new Set()  // a word and its bigrams share a position: mark it once
      for (const [term, fields] of Object.entries(result.matchData.metadata)) {
        const clause = clauses.find(c => c.term === term)
          || clauses.find(c => c.wildcard && term.startsWith(c.term))
        const word = clause ? clause.origin : null
        if (!word)
          continue  // a bigram of no shown word: it counts in the score, not as a word found
        const into = metadata[word] || (metadata[word] = {})
        for (const [name, data] of Object.entries(fields)) {
          const positions = (into[name] || (into[name] = {position: []})).position
          for (const position of data.position || [])
            if (!seen.has(`${name}:${position}`) && seen.add(`${name}:${position}`))
              positions.push(position)
        }
      }
      result.matchData.metadata = metadata
      if (!result.ref.includes("#"))
        result.score *= PAGE_WEIGHT
    }
    return results.length ? results : anyWord(this, clauses)
  }
}

// A word's trailing wildcard, expanded by lunr's own token set, but never into code: a prose word stays
// out of identifiers (device: not device_ids, device_count; set: not set_epoch), which are found whole.
function expanded(index, clause) {
  if (!clause.wildcard)
    return [clause.term]
  return index.tokenSet.intersect(self.lunr.TokenSet.fromString(`${clause.term}*`)).toArray()
    .filter(term => !/[_.\d]/.test(term.slice(clause.term.length)))
}

// lunr matched no clause (the word is only found inside longer tokens): the pages
// (and sections) that contain any word of the query, as a stem or as typed, most words first. A query never comes back empty while one of its words
// is on a page.
function anyWord(index, clauses) {
  const words = [...new Set(clauses.filter(c => !/^[\ue000-\ue003]/.test(c.term))
    .map(c => c.term))]
  const typed = asked.normalize("NFKC").toLowerCase().split(/\s+/).filter(w => w.length > 1)
  const out = []
  for (const [location, text] of texts) {
    const hits = [...new Set([...words, ...typed])].filter(w => text.includes(w.replace(/\s+/g, "")))
    if (hits.length)
      out.push({ref: location, score: hits.length, matchData: {metadata: {}}})
  }
  return out.sort((a, b) => b.score - a.score).filter(r => index.fieldVectors[`title/${r.ref}`])
}

let ready = Promise.resolve()

addEventListener("message", ev => {
  if (ev.data && ev.data.forwarded)
    return  // one of ours, for Material's handler (registered after this one)
  ev.stopImmediatePropagation()
  const message = ev.data
  const forward = data => dispatchEvent(new MessageEvent("message", {data: {...data, forwarded: true}}))
  if (message.type === SETUP) {
    ready = fetch(INDEX)
      .then(res => {
        if (!res.ok)
          throw new Error(`${INDEX}: ${res.status}`)
        return res.json()
      })
      .then(index => {
        index.config.fields.title.boost = TITLE_BOOST
        for (const doc of index.docs) {
          // full-width and half-width forms folded, as the query's are: ｎｏｎ＿ｂｌｏｃｋｉｎｇ, ﾃﾞﾊﾞｲｽ
          doc.title = doc.title.normalize("NFKC")
          doc.text = doc.text.normalize("NFKC")
          // a notebook heading's permalink sign, "device¶", kept "device" from matching the title
          doc.title = doc.title.replace(/\s*¶$/, "")
          texts.set(doc.location, squeeze(plain(`${doc.title} ${doc.text}`)))
          titles.set(doc.location, squeeze(plain(doc.title)))
        }
        groups = index.config.synonyms || []
        wrapBuilder(self.lunr)
        forward({type: SETUP, data: {...message.data, config: index.config, docs: index.docs}})
      })
      .catch(err => {
        console.error("search index:", err)
        built()  // Material answers every query with no result
      })
  } else if (message.type === QUERY) {
    ready.then(() => indexBuilt).then(() => {
      asked = message.data
      asking = plan(message.data)
      forward({type: QUERY, data: asking.shown.join(" ")})
    })
  } else {
    forward(message)
  }
})

importScripts(params.get("material"))
