// @ts-check
// House rules ESLint has no core rule for.
import { basename } from 'node:path'

/** kebab-case file names, with dotted parts: users.routes.ts, reference-temperature.rules.ts. */
const KEBAB_FILE = /^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+(-[a-z0-9]+)*)*$/
/** Migrations keep Kysely's NNNN_snake_case: their names are recorded in every database. */
const MIGRATION_FILE = /^[0-9]{4}_[a-z0-9]+(_[a-z0-9]+)*\.ts$/

/** @type {import('eslint').ESLint.Plugin} */
export const houseRules = {
  rules: {
    'file-name-case': {
      meta: { type: 'suggestion', docs: { description: 'file names in kebab-case' }, schema: [] },
      /** @param {import('eslint').Rule.RuleContext} context */
      create(context) {
        return {
          /** @param {import('estree').Program} node */
          Program(node) {
            const name = basename(context.filename)
            const migration = context.filename.includes('/db/migrations/') && MIGRATION_FILE.test(name)
            if (!KEBAB_FILE.test(name) && !migration)
              context.report({
                node,
                message: `File name "${name}" is not kebab-case (users.routes.ts, herd-simulator.ts)`,
              })
          },
        }
      },
    },
  },
}
