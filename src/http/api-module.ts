// A feature module as app.ts registers it: its OpenAPI tag and its routes. Every route a module
// registers gets the module's tag unless it names its own.
import type { TSchema } from 'typebox'
import type { App } from '../types.ts'

export interface ApiModule {
  tag: string
  /** The tag's description in the OpenAPI document. */
  description: string
  /** Schemas with an $id that its routes reference (its resources' items); app.ts registers them once. */
  schemas?: TSchema[]
  /** What it sends to others' URLs, as OpenAPI 3.1 `webhooks` (name -> path item), listed beside the routes. */
  webhooks?: Record<string, object>
  routes: (app: App) => Promise<void>
}

export function defineModule(module: ApiModule): ApiModule {
  return module
}
