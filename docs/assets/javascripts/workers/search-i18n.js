/* Material's search worker, with three changes (scripts/search_hooks.py points each page at it):

   1. The index of the page's language only (search/search_index.<lang>.json, written by the
      build): results stay in the reader's language, and a first search downloads a third.
   2. Japanese queries are segmented with the TinySegmenter that segmented the index. Material
      segments the pages but looks a query up whole (mkdocs-material #3112), so テンソルを or
      モデルをGPUに移動 found nothing. Full-width and half-width forms are folded (NFKC) first.
   3. Korean words are reduced to stems, in the index and in the query alike: 옮기다, 옮겨요,
      옮깁니다 and 옮긴 all become 옮기 (and 복사되나요 복사), 텐서를 and 텐서는 become 텐서.
   Also, in every language, stop words are left out of the query (Material appends `*` to every
   term, so `to` or `を` matched every word that starts with it) and English terms are stemmed
   as the index is (hiding finds hide).

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
  에서는 에서도 에서의 에서 에게는 에게 께서 으로는 으로도 으로써 으로 로는 로도 로써 로 까지 부터 보다 처럼
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
    if (next === w || !next || !isHangul(next.charCodeAt(next.length - 1)))
      break
    w = next
  }
  // a noun made a verb: 이동하(다), 복사되(나요), 이동시키(다) → 이동, 복사
  const light = w.match(/^(.*[가-힣].*[가-힣])(?:하|되|시키|시켜|당하)$/)
  return light ? light[1] : w
}

/* ------------------------------------------------------------------------------------ query */

const HIRAGANA = /^[\u3040-\u309f\u30fc]+$/

function terms(query) {
  const lunr = self.lunr
  const words = []
  for (const piece of query.normalize("NFKC").split(lunr.tokenizer.separator)) {
    if (!piece)
      continue
    const segmenter = lunr.segmenter
    if (LANG === "ja" && segmenter && /^[MHIK]$/.test(segmenter.ctype_(piece)))
      words.push(...segmenter.segment(piece).map(s => s.trim()).filter(Boolean))
    else
      words.push(piece)
  }
  const language = LANG === "en" ? lunr : lunr[LANG]
  const stop = language && language.stopWordFilter
  let kept = words.filter(w => /[\p{L}\p{N}_]/u.test(w))
    .filter(w => !stop || stop(w.toLowerCase()) !== undefined)
  if (LANG === "ja") {  // particles and endings (を, に, する, される): keep the content words
    const content = kept.filter(w => !HIRAGANA.test(w))
    if (content.length)
      kept = content
  }
  if (LANG === "ko")
    kept = kept.map(w => koStem(w.toLowerCase()))
  if (LANG === "en" && lunr.stemmer)
    kept = kept.map(w => lunr.stemmer(new lunr.Token(w.toLowerCase())).toString())
  // Nothing left (a query of stop words only): search what was typed.
  return kept.length ? kept : words
}

/* ------------------------------------------------------------------------- exact phrases first */

// lunr scores words, not phrases: a pasted error message ranked the pages that say "tensor" and
// "device" most often above the one that shows the message. Pages that contain the query as typed
// (or its first words, at least three) come first; lunr's order is kept among equals.
const plain = text => text.replace(/<[^>]*>/g, "").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
  .replace(/&quot;/g, '"').replace(/&#0?39;/g, "'").replace(/&amp;/g, "&")
const squeeze = text => text.normalize("NFKC").toLowerCase().replace(/\s+/g, "")
const texts = new Map()  // location -> squeezed title and text

function phrases(query) {
  const words = query.normalize("NFKC").trim().split(/\s+/).filter(Boolean)
  const out = []
  for (let n = words.length; n >= Math.min(3, words.length); n--) {
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
  if (message && message.type === RESULT && asked)
    message = {...message, data: {...message.data, items: phraseFirst(message.data.items, asked)}}
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
        for (const doc of index.docs)
          texts.set(doc.location, squeeze(plain(`${doc.title} ${doc.text}`)))
        forward({type: SETUP, data: {...message.data, config: index.config, docs: index.docs}})
      })
      .catch(err => console.error("search index:", err))
  } else if (message.type === QUERY) {
    ready.then(() => {
      asked = message.data
      forward({type: QUERY, data: terms(message.data).join(" ")})
    })
  } else {
    forward(message)
  }
})

importScripts(params.get("material"))
