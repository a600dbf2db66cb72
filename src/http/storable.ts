// Values no store keeps faithfully (a NUL, a lone surrogate, a non-finite number): refused at the edge,
// for HTTP bodies by the validator (plugins/validation.ts) and for MQTT payloads by the ingestion.

/** The first value under `data` that no store keeps faithfully, with its JSON pointer; keys count too. */
export function unstorableValue(data: unknown, path: string): { path: string; message: string } | undefined {
  if (typeof data === 'string') {
    if (data.includes('\u0000')) return { path, message: 'must not contain the NUL character (U+0000)' }
    if (!data.isWellFormed()) return { path, message: 'must be well-formed Unicode (it holds a lone surrogate)' }
    return undefined
  }
  if (typeof data === 'number') return Number.isFinite(data) ? undefined : { path, message: 'must be a finite number' }
  if (Array.isArray(data)) {
    for (let i = 0; i < data.length; i++) {
      const problem = unstorableValue(data[i], `${path}/${i}`)
      if (problem) return problem
    }
    return undefined
  }
  if (data !== null && typeof data === 'object') {
    for (const [key, value] of Object.entries(data)) {
      const pointer = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`
      const problem = unstorableValue(key, pointer) ?? unstorableValue(value, pointer)
      if (problem) return problem
    }
  }
  return undefined
}
