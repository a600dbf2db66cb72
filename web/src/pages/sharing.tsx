// Sharing: the integrators that can reach this farm's data (who they are, what they may do, when they last came),
// linking and unlinking them, and the access log ("who read or changed my data") in words.
import { useState } from 'preact/hooks'
import type { ApiError } from '../api.ts'
import { request, userPath, type LinkedIntegrator, type UsageRecord } from '../api.ts'
import { requestInWords } from '../access-log.ts'
import { t, type TextKey } from '../i18n.ts'
import { Failure, Loading, Section, formatDateTime, useApi } from '../ui.tsx'

const PERMISSIONS: [keyof LinkedIntegrator['permissions'], TextKey][] = [
  ['canRead', 'mayRead'],
  ['canWrite', 'mayWrite'],
  ['canDelete', 'mayDelete'],
]

function IntegratorItem({
  integrator,
  busy,
  onUnlink,
}: {
  integrator: LinkedIntegrator
  busy: boolean
  onUnlink: () => void
}) {
  const allowed = PERMISSIONS.filter(([permission]) => integrator.permissions[permission])
  return (
    <li>
      <div class="integrator">
        <strong>{integrator.name}</strong> <code>{integrator.integratorUID}</code>
        <div class="muted">
          {integrator.email} · {t('linkedSince').replace('{when}', formatDateTime(integrator.linkedAt))} ·{' '}
          {integrator.lastRequestAt === null
            ? t('noRequestYet')
            : t('lastRequest').replace('{when}', formatDateTime(integrator.lastRequestAt))}
        </div>
        <div>
          {allowed.map(([permission, label]) => (
            <span class="pill" key={permission}>
              {t(label)}
            </span>
          ))}{' '}
          {!integrator.isActive && <span class="pill warning">{t('integratorInactive')}</span>}
        </div>
      </div>
      <button type="button" disabled={busy} aria-label={`${t('unlink')}: ${integrator.name}`} onClick={onUnlink}>
        {t('unlink')}
      </button>
    </li>
  )
}

/** What a logged request did, in words where the app has them, else as the API names it. */
function requestText(entry: UsageRecord): string {
  const words = requestInWords(entry.method, entry.endpoint)
  return words ? `${t(words.verb)}: ${t(words.noun)}` : `${entry.method} ${entry.endpoint}`
}

export function SharingPage() {
  const integrators = useApi<LinkedIntegrator[]>(userPath('/integrators'))
  const log = useApi<UsageRecord[]>(userPath('/access-log?limit=50'))
  const [uid, setUid] = useState('')
  const [error, setError] = useState<ApiError | undefined>()
  const [busy, setBusy] = useState(false)
  const names = new Map((integrators.data ?? []).map((i) => [i.integratorUID, i.name]))

  const change = async (work: () => Promise<unknown>) => {
    setBusy(true)
    setError(undefined)
    try {
      await work()
      integrators.reload()
      log.reload()
    } catch (err) {
      setError(err as ApiError)
    } finally {
      setBusy(false)
    }
  }
  const link = (event: Event) => {
    event.preventDefault()
    void change(async () => {
      await request('POST', '/partners/link', { integratorUID: uid.trim() })
      setUid('')
    })
  }
  const unlink = (integrator: string) =>
    void change(() => request('DELETE', `/partners/link/${encodeURIComponent(integrator)}`))

  return (
    <>
      <Section title={t('linkedIntegrators')}>
        <Loading when={integrators.loading && !integrators.data} />
        <Failure error={integrators.error ?? error} retry={integrators.reload} />
        {integrators.data && integrators.data.length === 0 && <p class="muted">{t('noIntegrators')}</p>}
        <ul class="integrators" aria-label={t('linkedIntegrators')}>
          {(integrators.data ?? []).map((integrator) => (
            <IntegratorItem
              key={integrator.integratorUID}
              integrator={integrator}
              busy={busy}
              onUnlink={() => unlink(integrator.integratorUID)}
            />
          ))}
        </ul>
        <form class="inline" onSubmit={link}>
          <label for="link-integrator">{t('integratorUid')}</label>
          <input id="link-integrator" value={uid} onInput={(event) => setUid(event.currentTarget.value)} />
          <button type="submit" disabled={busy || uid.trim() === ''}>
            {t('link')}
          </button>
        </form>
      </Section>
      <Section title={t('accessLog')}>
        <Loading when={log.loading && !log.data} />
        <Failure error={log.error} retry={log.reload} />
        {log.data && log.data.length === 0 && <p class="muted">{t('noAccess')}</p>}
        <div class="table-wrap">
          <table class="log">
            <tbody>
              {(log.data ?? []).map((entry, i) => (
                <tr key={i}>
                  <td>{formatDateTime(entry.timestamp)}</td>
                  <td>{names.get(entry.integratorUID) ?? <code>{entry.integratorUID}</code>}</td>
                  <td class="path" title={`${entry.method} ${entry.endpoint}`}>
                    {requestText(entry)}
                  </td>
                  <td>{entry.responseCode >= 400 ? `${t('refused')} (${entry.responseCode})` : entry.responseCode}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Section>
    </>
  )
}
