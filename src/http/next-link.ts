// The RFC 8288 `next` link of a list read by a cursor: the request's own path and query (a relative reference,
// right behind any proxy) with the cursor parameter set to where this page ended.

/** `<path?query>; rel="next"`, the query of `url` with `name` set to `value` and `page` dropped. */
export function nextLink(url: string, name: string, value: string): string {
  const [path = '', query = ''] = url.split('?', 2)
  const params = new URLSearchParams(query)
  params.delete('page')
  params.set(name, value)
  return `<${path}?${params.toString()}>; rel="next"`
}
