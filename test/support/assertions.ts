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

/** Deep equality, numbers to 1e-12 relative (sums of doubles in another order). */
export function assertClose(expected: unknown, actual: unknown, path = ''): void {
  if (typeof expected === 'number' && typeof actual === 'number') {
    assert.ok(
      Math.abs(expected - actual) <= 1e-12 * Math.max(1, Math.abs(expected)),
      `${path}: ${actual} vs ${expected}`,
    )
  } else if (expected && typeof expected === 'object' && actual && typeof actual === 'object') {
    assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), path)
    for (const key of Object.keys(expected))
      assertClose(
        (expected as Record<string, unknown>)[key],
        (actual as Record<string, unknown>)[key],
        `${path}.${key}`,
      )
  } else assert.deepEqual(actual, expected, path)
}
