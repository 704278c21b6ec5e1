/* Material's search worker, with three changes (coursebuild/search/index.py points each page at it):

   1. The index of the page's language only (search/search_index.<lang>.json, written by the
      build): results stay in the reader's language, and a first search downloads a third.
   2. Japanese queries are segmented with the TinySegmenter that segmented the index. Material
      segments the pages but looks a query up whole (mkdocs-material #3112), so テンソルを or
      モデルをGPUに移動 found nothing. Full-width and half-width forms are folded (NFKC) first.
   3. Korean words are reduced to stems, in the index and in the query alike: 옮기다, 옮겨요,
      옮깁니다 and 옮긴 all become 옮기 (and 복사되나요 복사), 텐서를 and 텐서는 become 텐서.
   4. Synonyms (coursebuild/search/synonyms/<lang>.yml, in the index's config): every spelling of a group is
      marked with the group's key, in the pages and in the query alike, so that インプレース finds
      in-place, 데이터 병렬 DataParallel and "not enough memory" the page on out of memory.
   Also, in every language, the query goes through the pipeline that the index went through: stop
   words are left out (Material appends `*` to every term, so `to` or `を` matched every word that
   starts with it) and words are stemmed as the index's are (hiding finds hide).

   Material's worker runs unchanged underneath (loaded with importScripts); this file only edits
   the messages it receives. The query set in tests/search_queries.yml measures the result. */
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
  만으로는 만으로 만큼 마다 이라도 이나 이란 이며 이고 와는 과는 와의 과의 와 과 의 을 를 은 는 이 가 도 에는 에도 에 만 나 란
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
const synonyms = {keys: new Map(), prefixes: new Set(), shown: new Map(), skipped: []}

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

/* ------------------------------------------------------------------------------------ query */

const HIRAGANA = /^[\u3040-\u309f\u30fc]+$/
let queryPipeline = null  // the index's pipeline without markSynonyms, set when the index is built

function words(text) {
  const lunr = self.lunr
  const out = []
  for (const piece of text.normalize("NFKC").split(lunr.tokenizer.separator)) {
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

function terms(query) {
  const all = piped(query)
  const typed = all.map(([w]) => w)
  const at = all.flatMap(([, out], i) => out.length ? [i] : [])  // the words left, by position
  const found = findSynonyms(at.map(i => all[i][1].join("")))
  synonyms.shown.clear()
  let kept = []
  for (let i = 0; i < at.length; i++) {
    const match = found.get(i)
    if (match) {  // the group's key in place of its spelling
      const [key, length] = match
      const span = typed.slice(at[i], at[i + length - 1] + 1)
      synonyms.shown.set(key, span.join(LANG === "ja" ? "" : " "))
      kept.push(key)
      i += length - 1
    } else {
      kept.push(...all[at[i]][1])
    }
  }
  kept = kept.filter(w => /[\p{L}\p{N}_]/u.test(w))
  if (LANG === "ja") {  // particles and endings (を, に, する, される): keep the content words
    const content = kept.filter(w => !HIRAGANA.test(w))
    if (content.length)
      kept = content
  }
  // Nothing left (a query of stop words only): search what was typed.
  return kept.length ? kept : typed
}

// Material shows a result's query terms (missing ones struck through, found ones in the link that
// highlights them on the page): the words the reader typed, not a group's key.
function shownTerms(terms) {
  const out = {}
  for (const [term, found] of Object.entries(terms || {}))
    out[synonyms.shown.get(term) || term] = found
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

const post = self.postMessage.bind(self)
let asked = ""
self.postMessage = message => {
  if (message && message.type === RESULT && asked) {
    const items = phraseFirst(message.data.items, asked)
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
  lunr.Builder.prototype.add = function (...args) {
    if (!queryPipeline) {
      queryPipeline = lunr.Pipeline.load(this.pipeline.toJSON())
      compileSynonyms(groups)
      this.pipeline.add(markSynonyms)
    }
    return add.apply(this, args)
  }
  lunr.Builder.prototype.build = function (...args) {
    try {
      return build.apply(this, args)
    } finally {
      built()
    }
  }
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
        // English: stem when indexing too, so that both sides agree (hiding, hide → hide)
        if (LANG === "en" && !index.config.pipeline.includes("stemmer"))
          index.config.pipeline = [...index.config.pipeline, "stemmer"]
        for (const doc of index.docs) {
          // a notebook heading's permalink sign, "device¶", kept "device" from matching the title
          doc.title = doc.title.replace(/\s*¶$/, "")
          texts.set(doc.location, squeeze(plain(`${doc.title} ${doc.text}`)))
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
      forward({type: QUERY, data: terms(message.data).join(" ")})
    })
  } else {
    forward(message)
  }
})

importScripts(params.get("material"))
