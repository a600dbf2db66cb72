// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The resource layer's derivations from one field table: schemas, list fields, columns, mappers.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Ajv } from 'ajv'
import { field, snakeCase } from '../../src/resource/field.ts'
import { defineResource } from '../../src/resource/resource.ts'

const pens = defineResource({
  name: 'Pen',
  table: 'pens',
  description: 'A test resource',
  fields: {
    ID: field.id(),
    Name: field.string({ required: true, caseInsensitive: true }),
    Capacity: field.integer({ minimum: 0, maximum: 500 }),
    Heated: field.boolean({ default: false }),
    Notes: field.string({ nullable: 'null', maxLength: 2000 }),
    Layout: field.json((extra) => ({ type: 'object', ...extra })),
    Code: field.string({ createOnly: true, toColumn: (v) => String(v).toUpperCase() }),
    t: field.createdAt(),
  },
})
const ajv = new Ajv({ useDefaults: true, strict: false })

describe('a resource declared once', () => {
  it('derives a create body: required fields, defaults, no read-only fields, nothing unknown', () => {
    const validate = ajv.compile(pens.createBody())
    const body: Record<string, unknown> = { Name: 'Farrowing 1' }
    assert.equal(validate(body), true)
    assert.equal(body.Heated, false, 'the default is filled in')
    assert.equal(validate({}), false)
    assert.equal(validate({ Name: 'x', ID: '1' }), false, 'ID is read-only')
    assert.equal(validate({ Name: 'x', t: 1 }), false, 't is read-only')
    assert.equal(validate({ Name: 'x', Surprise: 1 }), false)
    assert.equal(validate({ Name: 'x', Notes: null }), true, 'a field shown as null may be sent as null')
    assert.equal(validate({ Name: 'x', Capacity: null }), false)
    assert.equal(validate({ Name: '' }), false, 'strings are non-empty')
  })

  it('derives variants of the create body', () => {
    const relaxed = ajv.compile(
      pens.createBody({ optional: ['Name'], require: ['Capacity'], omit: ['Code'], defaults: { Heated: true } }),
    )
    const body: Record<string, unknown> = { Capacity: 20 }
    assert.equal(relaxed(body), true)
    assert.equal(body.Heated, true)
    assert.equal(relaxed({}), false)
    assert.equal(relaxed({ Capacity: 1, Code: 'x' }), false)
  })

  it('derives a patch body: at least one field, null clears optional fields, create-only fields refused, no defaults', () => {
    const validate = ajv.compile(pens.patchBody())
    const body: Record<string, unknown> = { Capacity: null }
    assert.equal(validate(body), true)
    assert.deepEqual(body, { Capacity: null }, 'no default is filled into a patch')
    assert.equal(validate({}), false)
    assert.equal(validate({ Name: null }), false, 'a required field cannot be cleared')
    assert.equal(validate({ Code: 'A1' }), false, 'Code is written on create only')
  })

  it('derives the sortable and filterable fields, and the column map', () => {
    assert.deepEqual(pens.sortFields, {
      ID: 'integer',
      Name: 'string',
      Capacity: 'integer',
      Heated: 'boolean',
      Notes: 'string',
      Code: 'string',
      t: 'integer',
    })
    assert.deepEqual(pens.filterFields, pens.sortFields)
    assert.deepEqual(pens.columns({ own: 'p' }).Name, { column: 'p.name', caseInsensitive: true })
    assert.equal(pens.columns().t!.column, 't')
  })

  it('maps rows to the API and bodies to columns', () => {
    const row = {
      id: 1767225600000,
      name: 'Pen 1',
      capacity: null,
      heated: true,
      notes: null,
      layout: { rows: 2 },
      code: 'A1',
      t: 5,
    }
    assert.deepEqual(pens.toApi(row), {
      ID: '1767225600000',
      Name: 'Pen 1',
      Heated: true,
      Notes: null,
      Layout: { rows: 2 },
      Code: 'A1',
      t: 5,
    })
    assert.deepEqual(pens.toColumns({ Name: 'Pen 2', Capacity: null, Layout: { rows: 3 }, Code: 'b2', Unknown: 1 }), {
      name: 'Pen 2',
      capacity: null,
      layout: '{"rows":3}',
      code: 'B2',
    })
    assert.deepEqual(pens.filterValues({ Code: 'b2', Capacity: 3 }), { Code: 'B2', Capacity: 3 })
  })

  it('names columns in snake_case unless told', () => {
    assert.equal(snakeCase('CurrentTemperature'), 'current_temperature')
    assert.equal(snakeCase('serviceOrder'), 'service_order')
    assert.equal(snakeCase('BDUser'), 'bd_user')
    assert.equal(snakeCase('t'), 't')
  })
})
