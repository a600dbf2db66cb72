// Builds the farm app (web/) in memory with esbuild: the service serves what this returns, so `npm start`
// needs no build step and every process of a deployment builds the same files from the same sources.
// Each file is compressed once here (brotli and gzip), not on every request.
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

export interface BuiltFile {
  contentType: string
  body: Buffer
  br: Buffer
  gzip: Buffer
  etag: string
  /** Content-hashed names never change: cached for a year. The others are revalidated. */
  immutable: boolean
}

export const WEB_ROOT = fileURLToPath(new URL('../../web/', import.meta.url))

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.webmanifest': 'application/manifest+json',
  '.map': 'application/json',
}

function builtFile(name: string, body: Buffer, immutable: boolean): BuiltFile {
  const extension = name.slice(name.lastIndexOf('.'))
  return {
    contentType: CONTENT_TYPES[extension] ?? 'application/octet-stream',
    body,
    br: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
    gzip: gzipSync(body, { level: 9 }),
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
    immutable,
  }
}

/** The app's files by their name under /app/ ('' is the page itself). */
export async function buildFarmApp(): Promise<Map<string, BuiltFile>> {
  const { build } = await import('esbuild')
  const result = await build({
    absWorkingDir: WEB_ROOT,
    entryPoints: { app: 'src/main.tsx' },
    bundle: true,
    splitting: true,
    format: 'esm',
    minify: true,
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: 'out',
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    write: false,
    metafile: false,
    legalComments: 'none',
    logLevel: 'silent',
  })
  const worker = await build({
    absWorkingDir: WEB_ROOT,
    entryPoints: ['src/service-worker.ts'],
    bundle: true,
    format: 'esm',
    minify: true,
    target: 'es2022',
    write: false,
    outfile: 'out/sw.js',
    logLevel: 'silent',
  })
  const files = new Map<string, BuiltFile>()
  const hashed: string[] = []
  for (const output of result.outputFiles) {
    const name = output.path.slice(output.path.lastIndexOf('/') + 1)
    files.set(name, builtFile(name, Buffer.from(output.contents), true))
    hashed.push(name)
  }
  const script = hashed.find((name) => /^app-.*\.js$/.test(name))
  const style = hashed.find((name) => /^app-.*\.css$/.test(name))
  if (!script || !style) throw new Error('the farm app build made no app script or style sheet')
  const page = (await readFile(`${WEB_ROOT}index.html`, 'utf8'))
    .replace('{{script}}', `./${script}`)
    .replace('{{style}}', `./${style}`)
  files.set('', builtFile('index.html', Buffer.from(page), false))
  for (const name of ['manifest.webmanifest', 'icon.svg']) {
    files.set(name, builtFile(name, await readFile(`${WEB_ROOT}${name}`), false))
  }
  // The service worker precaches the page and everything it loads; its own bytes change with them, so the
  // browser installs a new worker (and drops the old cache) whenever the app changes.
  const precache = ['./', ...hashed.filter((name) => !name.endsWith('.map')), './manifest.webmanifest', './icon.svg']
  const version = createHash('sha256').update(precache.join('\n')).update(page).digest('base64url').slice(0, 12)
  const workerSource = Buffer.from(
    `self.__PRECACHE=${JSON.stringify(precache)};self.__VERSION=${JSON.stringify(version)};` +
      Buffer.from(worker.outputFiles[0]!.contents).toString('utf8'),
  )
  files.set('sw.js', builtFile('sw.js', workerSource, false))
  return files
}
