// One block of a text/event-stream (the lines between two blank lines) as its id, event name and data.
export function parseEventBlock(block: string): { id?: string; event: string; data?: string } {
  let id: string | undefined
  let event = 'message'
  const data: string[] = []
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith(':')) continue
    const colon = line.indexOf(':')
    const field = colon < 0 ? line : line.slice(0, colon)
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
    if (field === 'id') id = value
    else if (field === 'event') event = value
    else if (field === 'data') data.push(value)
  }
  return { ...(id !== undefined ? { id } : {}), event, ...(data.length > 0 ? { data: data.join('\n') } : {}) }
}
