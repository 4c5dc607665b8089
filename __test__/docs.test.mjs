// The README stays short enough to read in a minute, and every link it and the docs/ pages make to
// a file of this repository (docs pages, their #anchors, CHANGELOG, bench/) resolves.
import test from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const read = (rel) => readFileSync(join(ROOT, rel), 'utf8')

// GitHub's heading anchors: lower case, punctuation other than '-' and '_' dropped, spaces to '-'.
function anchors(markdown) {
  const out = new Set()
  let fence = false
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fence = !fence
    const m = !fence && /^#{1,6}\s+(.*)$/.exec(line)
    if (!m) continue
    const slug = m[1]
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-')
    let s = slug
    for (let i = 1; out.has(s); i++) s = `${slug}-${i}`
    out.add(s)
  }
  return out
}

// Relative Markdown links [text](target) outside code fences and inline code.
function links(markdown) {
  const out = []
  let fence = false
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fence = !fence
    if (fence) continue
    const text = line.replace(/`[^`]*`/g, '')
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!/^[a-z]+:/i.test(m[1])) out.push(m[1])
    }
  }
  return out
}

function checkLinks(rel) {
  const bad = []
  for (const link of links(read(rel))) {
    const [path, hash] = link.split('#')
    const target = path ? normalize(join(dirname(rel), path)) : rel
    if (!existsSync(join(ROOT, target))) {
      bad.push(`${link} (no ${target})`)
      continue
    }
    if (hash && target.endsWith('.md') && !anchors(read(target)).has(hash)) bad.push(`${link} (no heading #${hash} in ${target})`)
  }
  return bad
}

const pages = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)

test('the README is at most 300 lines', () => {
  const n = read('README.md').split('\n').length
  assert.ok(n <= 300, `README.md has ${n} lines`)
})

test('the README links every docs/ page and the CHANGELOG', () => {
  const linked = new Set(links(read('README.md')).map((l) => l.split('#')[0]))
  for (const p of [...pages, 'CHANGELOG.md']) assert.ok(linked.has(p), `README.md does not link ${p}`)
})

test('every relative link in the README and in docs/ resolves, anchors included', () => {
  for (const rel of ['README.md', 'CHANGELOG.md', ...pages]) assert.deepEqual(checkLinks(rel), [], rel)
})

test('each docs/ page starts with a title and what it covers', () => {
  for (const p of pages) {
    const [title, blank, intro] = read(p).split('\n')
    assert.match(title, /^# \S/, p)
    assert.equal(blank, '', p)
    assert.match(intro, /^This page covers /, p)
  }
})

test('the README keeps the two set-up commands: npm start and npm test', () => {
  const readme = read('README.md')
  assert.match(readme, /^npm install && npm start +# /m)
  assert.match(readme, /^npm test +# /m)
  const scripts = JSON.parse(read('package.json')).scripts
  assert.match(scripts.start, /build.*node bin\/surepatch\.mjs/)
  // The node step runs node --test __test__/ with results recorded, then checks them against schemas/.
  assert.match(scripts.test, /build.*cargo test.*node scripts\/test-node\.mjs/)
  assert.match(read('scripts/test-node.mjs'), /\['--test', '__test__\/'\]/)
})

test('docs/api.md lists every error code, and every exported function', () => {
  const api = read('docs/api.md')
  const codes = [...read('src/error.rs').matchAll(/=> "([A-Z_]+)",/g)].map((m) => m[1])
  assert.ok(codes.length > 20, 'error codes read from src/error.rs')
  for (const c of codes) assert.ok(api.includes(`\`${c}\``), `docs/api.md does not mention ${c}`)
  const fns = [...read('index.d.ts').matchAll(/^export (?:declare )?(?:function|const) (\w+)/gm)].map((m) => m[1])
  for (const f of fns) assert.ok(api.includes(`\`${f}`) || api.includes(` ${f}(`), `docs/api.md does not mention ${f}`)
})

test('docs/mcp.md lists every MCP tool and a configuration for each client named', () => {
  const mcp = read('docs/mcp.md')
  const { TOOLS } = createRequire(import.meta.url)('../tools/table.cjs')
  assert.ok(TOOLS.length >= 14)
  for (const { name } of TOOLS) assert.match(mcp, new RegExp(`^\\| \`${name}\` \\|`, 'm'), `${name} is not in the tools table`)
  for (const client of ['Claude Desktop', 'Cursor', 'Codex', 'VS Code']) assert.match(mcp, new RegExp(`\\*\\*${client}\\*\\*`), client)
})
