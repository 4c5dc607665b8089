// Checks npm/<platform>/package.json against package.json's `napi` config, using
// the napi CLI's own target parsing, so each platform package's `main` is exactly
// the file `napi build --platform` writes and `napi artifacts` moves there.
//
//   node scripts/check-npm-dirs.mjs        (after `npm install`)
//
// Prints one line per target and "N passed, N failed" last; exits 1 on any failure.
import { readFileSync, readdirSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { parseTriple, readNapiConfig } from '@napi-rs/cli'

const root = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..')
const rootPkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const { binaryName, packageName, targets } = await readNapiConfig(join(root, 'package.json'))

const LIBC = { gnu: 'glibc', musl: 'musl' }
let passed = 0
let failed = 0
const seen = new Set()

for (const target of targets.map((t) => parseTriple(t.triple))) {
  const platform = target.platformArchABI
  const dir = join(root, 'npm', platform)
  seen.add(platform)
  const problems = []
  let pkg
  try {
    pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  } catch (e) {
    problems.push(`npm/${platform}/package.json: ${e.message}`)
  }
  if (pkg) {
    const file = `${binaryName}.${platform}.node`
    const want = {
      name: `${packageName}-${platform}`,
      version: rootPkg.version,
      main: file,
      files: [file],
      os: [target.platform],
      cpu: [target.arch],
      libc: LIBC[target.abi] && [LIBC[target.abi]],
      license: rootPkg.license,
      engines: rootPkg.engines,
    }
    for (const [key, value] of Object.entries(want)) {
      if (JSON.stringify(pkg[key]) !== JSON.stringify(value)) {
        problems.push(`${key} is ${JSON.stringify(pkg[key])}, want ${JSON.stringify(value)}`)
      }
    }
    if (!existsSync(join(dir, 'README.md'))) problems.push('README.md missing')
  }
  if (problems.length) {
    failed++
    console.log(`FAIL ${target.triple} -> npm/${platform}: ${problems.join('; ')}`)
  } else {
    passed++
    console.log(`ok   ${target.triple} -> npm/${platform} (main ${pkg.main})`)
  }
}

for (const dir of readdirSync(join(root, 'npm'))) {
  if (!seen.has(dir)) {
    failed++
    console.log(`FAIL npm/${dir}: no such target in package.json's napi.targets`)
  }
}

console.log(`${passed} passed, ${failed} failed`)
process.exit(failed ? 1 : 0)
