// A two-minute tour: edits a file in a temp workspace the way an agent would, noise and mistakes
// included, and prints each receipt.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'

const { patchFile, applyEdits } = createRequire(import.meta.url)('../index.js')
const root = mkdtempSync(join(tmpdir(), 'surepatch-demo-'))
const opts = { workspace_root: root }
writeFileSync(join(root, 'app.py'), 'def retry(n):\r\n    for i in range(n):\r\n        print("attempt", i)\r\n    return n\r\n')

const show = (title, r) => console.log(`\n== ${title}\n${JSON.stringify(r, null, 2)}`)

// 1. LF search block and curly quotes against a CRLF file: matched at a tolerance tier, written as CRLF.
show('tolerant patch', await patchFile({ file_path: 'app.py', search_block: '        print(\u201Cattempt\u201D, i)\n', replace_block: '        print("attempt", i + 1)\n' }, opts))
// 2. A stale line: refused, with the nearest region and what differs.
show('stale search block', await patchFile({ file_path: 'app.py', search_block: 'def retry(n):\n    for i in range(10):\n', replace_block: 'x' }, opts))
// 3. A batch, all or nothing.
show('batch', await applyEdits('app.py', [['def retry(n):', 'def retry(n, delay=0):'], { old: '    return n', new: '    return n * 2' }], opts))
console.log(`\n== file now (${root}/app.py)\n${JSON.stringify(readFileSync(join(root, 'app.py'), 'utf8'))}`)
