// toolDefinitions for every function-calling API, checked against the documented rules of each:
// names, strict mode's schema subset, and the runner's reading of null as absent.
import test from 'node:test'
import assert from 'node:assert/strict'
import { sp, workspace } from './helpers.mjs'

const { toolDefinitions, createToolRunner } = sp
const NAME = /^[a-zA-Z0-9_-]{1,64}$/
const REFUSED = ['minLength', 'maxLength', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems', 'uniqueItems', 'default', 'oneOf', 'allOf', 'not', 'const', 'patternProperties', 'propertyNames', 'minProperties', 'maxProperties', '$schema']

// Every rule strict mode sets on a schema node, recursively.
function checkStrict(schema, at) {
  assert.equal(typeof schema, 'object', at)
  for (const k of REFUSED) assert.equal(k in schema, false, `${at}: ${k}`)
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []
  if (types.includes('object') || schema.properties) {
    assert.equal(schema.additionalProperties, false, `${at}: additionalProperties`)
    assert.deepEqual([...(schema.required || [])].sort(), Object.keys(schema.properties || {}).sort(), `${at}: required lists every property`)
    for (const [k, v] of Object.entries(schema.properties || {})) checkStrict(v, `${at}.${k}`)
  }
  if (schema.items) checkStrict(schema.items, `${at}[]`)
  for (const [i, v] of (schema.anyOf || []).entries()) checkStrict(v, `${at}|${i}`)
}

test('openai, anthropic, vercel: names and object schemas', () => {
  const names = toolDefinitions.openai.map((t) => t.function.name)
  assert.ok(names.length > 0)
  for (const n of names) assert.match(n, NAME)
  assert.deepEqual(toolDefinitions.anthropic.map((t) => t.name), names)
  assert.deepEqual(Object.keys(toolDefinitions.vercel), names)
  for (const t of toolDefinitions.anthropic) assert.equal(t.input_schema.type, 'object', t.name)
})

test('openaiStrict and openaiResponses follow strict mode', () => {
  const names = toolDefinitions.openai.map((t) => t.function.name)
  assert.deepEqual(toolDefinitions.openaiStrict.map((t) => t.function.name), names)
  assert.deepEqual(toolDefinitions.openaiResponses.map((t) => t.name), names)
  for (const t of toolDefinitions.openaiStrict) {
    assert.equal(t.type, 'function')
    assert.equal(t.function.strict, true)
    assert.equal(t.function.parameters.type, 'object', t.function.name)
    checkStrict(t.function.parameters, t.function.name)
  }
  for (const t of toolDefinitions.openaiResponses) {
    assert.deepEqual(Object.keys(t).sort(), ['description', 'name', 'parameters', 'strict', 'type'])
    assert.equal(t.strict, true)
    checkStrict(t.parameters, t.name)
  }
  // An optional argument becomes nullable, a required one does not.
  const pf = toolDefinitions.openaiStrict.find((t) => t.function.name === 'patch_file').function.parameters
  assert.ok([].concat(pf.properties.dry_run.type).includes('null'))
  assert.ok(![].concat(pf.properties.file_path.type).includes('null'))
})

test('a strict call with every optional argument null runs as if they were absent', async (t) => {
  const w = workspace(t)
  w.write('a.txt', 'one\n')
  const runner = createToolRunner({ workspaceRoot: w.root })
  const pf = toolDefinitions.openaiStrict.find((x) => x.function.name === 'patch_file').function.parameters
  const args = Object.fromEntries(Object.keys(pf.properties).map((k) => [k, null]))
  Object.assign(args, { file_path: 'a.txt', search_block: 'one', replace_block: 'two' })
  const r = await runner.call('patch_file', args)
  assert.equal(r.ok, true, r.message)
  assert.equal(w.text('a.txt'), 'two\n')
})

test('the runner takes arguments as an object or as the JSON string OpenAI sends', async (t) => {
  const w = workspace(t)
  w.write('a.txt', 'one\n')
  const runner = createToolRunner({ workspaceRoot: w.root })
  const r = await runner.call('patch_file', JSON.stringify({ file_path: 'a.txt', search_block: 'one', replace_block: 'two' }))
  assert.equal(r.ok, true, r.message)
  assert.equal(w.text('a.txt'), 'two\n')
  const bad = await runner.call('patch_file', '{"file_path": "a.txt", ')
  assert.equal(bad.code, 'INVALID_INPUT')
  assert.match(bad.message, /not valid JSON/)
  assert.equal(w.text('a.txt'), 'two\n')
})
