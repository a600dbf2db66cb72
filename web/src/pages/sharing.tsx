// Sharing: the integrators that read this farm's data, linking and unlinking them, and the access log
// ("who read or changed my data").
import { useState } from 'preact/hooks'
import type { ApiError } from '../api.ts'
import { get, request, userPath, type UsageRecord, type User } from '../api.ts'
import { t } from '../i18n.ts'
import { Failure, Loading, Section, formatDateTime, useApi } from '../ui.tsx'

export function SharingPage() {
  const user = useApi<User>(userPath(), (path) => get<User>(path).then((answer) => answer.data))
  const log = useApi<UsageRecord[]>(userPath('/access-log?limit=50'))
  const [uid, setUid] = useState('')
  const [error, setError] = useState<ApiError | undefined>()
  const [busy, setBusy] = useState(false)
  const integrators = user.data?.integrators ?? []

  const change = async (work: () => Promise<unknown>) => {
    setBusy(true)
    setError(undefined)
    try {
      await work()
      user.reload()
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
        <Loading when={user.loading && !user.data} />
        <Failure error={user.error ?? error} retry={user.reload} />
        {user.data && integrators.length === 0 && <p class="muted">{t('noIntegrators')}</p>}
        <ul class="integrators" aria-label={t('linkedIntegrators')}>
          {integrators.map((integrator) => (
            <li key={integrator}>
              <code>{integrator}</code>
              <button type="button" disabled={busy} onClick={() => unlink(integrator)}>
                {t('unlink')}
              </button>
            </li>
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
                  <td>
                    <code>{entry.integratorUID}</code>
                  </td>
                  <td class="path">
                    {entry.method} {entry.endpoint}
                  </td>
                  <td>{entry.responseCode}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Section>
    </>
  )
}
