// Assertions on the spec's error envelope, shared by the HTTP tests.
import assert from 'node:assert/strict'

interface JsonResponse {
  statusCode: number
  json: () => any
}

/** An error in the envelope: the status, success false, the exact error text, and optionally a field named in details. */
export function assertError(res: JsonResponse, status: number, error: string, field?: string) {
  assert.equal(res.statusCode, status, JSON.stringify(res.json()))
  assert.equal(res.json().success, false)
  assert.equal(res.json().error, error)
  if (field !== undefined)
    assert.ok(
      res.json().details.some((d: { field: string }) => d.field === field),
      JSON.stringify(res.json().details),
    )
}

/** A 400 `Validation failed` whose details name exactly these fields. */
export function assertInvalid(res: JsonResponse, fields: string[]) {
  assertError(res, 400, 'Validation failed')
  assert.deepEqual(
    res
      .json()
      .details.map((d: { field: string }) => d.field)
      .sort(),
    [...fields].sort(),
    JSON.stringify(res.json().details),
  )
}
