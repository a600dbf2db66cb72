// Which of the farm app's stored encodings a request accepts, read from its Accept-Encoding header as RFC 9110
// (section 12.5.3) defines it: q-values, `*` for any encoding not named, q=0 for "not acceptable".

export type StoredEncoding = 'br' | 'gzip' | 'identity'

/** The compressed encoding with the highest q above 0 (br first at equal q: smaller), else identity. */
export function chosenEncoding(header: string | undefined): StoredEncoding {
  const weights = new Map<string, number>()
  for (const item of (header ?? '').split(',')) {
    const [name, ...params] = item.split(';').map((part) => part.trim().toLowerCase())
    if (!name) continue
    const q = params.find((p) => p.startsWith('q='))
    const weight = q === undefined ? 1 : Number(q.slice(2))
    weights.set(name, Number.isFinite(weight) ? Math.min(Math.max(weight, 0), 1) : 0)
  }
  const weightOf = (name: string) => weights.get(name) ?? weights.get('*') ?? 0
  const [br, gzip] = [weightOf('br'), weightOf('gzip')]
  if (br > 0 && br >= gzip) return 'br'
  if (gzip > 0) return 'gzip'
  return 'identity'
}
