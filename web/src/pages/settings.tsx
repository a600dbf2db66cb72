// Settings: the farm's alert rules, the phones registered for push notifications, and the language.
import { useEffect, useState } from 'preact/hooks'
import type { ApiError } from '../api.ts'
import { request, userPath, type User, type UserPhone } from '../api.ts'
import { humanize } from '../farm.rules.ts'
import { LANGUAGES, language, t, type TextKey } from '../i18n.ts'
import { Failure, Loading, Section, formatDateTime, useApi } from '../ui.tsx'

type Rules = Record<string, unknown>

/** One control per value of the rules document: booleans as switches, numbers as numbers, objects as groups. */
function RulesEditor({
  value,
  path,
  onChange,
}: {
  value: unknown
  path: string[]
  onChange: (path: string[], v: unknown) => void
}) {
  const name = path.join('.')
  const label = humanize(path[path.length - 1] ?? '')
  if (typeof value === 'boolean') {
    return (
      <label class="switch">
        <input type="checkbox" name={name} checked={value} onChange={(e) => onChange(path, e.currentTarget.checked)} />{' '}
        {label}
      </label>
    )
  }
  if (typeof value === 'number') {
    return (
      <label class="number">
        {label}
        <input
          type="number"
          step="any"
          name={name}
          value={value}
          onInput={(e) => onChange(path, e.currentTarget.value === '' ? value : Number(e.currentTarget.value))}
        />
      </label>
    )
  }
  if (typeof value === 'string') {
    return (
      <label class="text">
        {label}
        <input name={name} value={value} onInput={(e) => onChange(path, e.currentTarget.value)} />
      </label>
    )
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    return (
      <fieldset>
        {path.length > 0 && <legend>{label}</legend>}
        {Object.entries(value as Record<string, unknown>).map(([key, child]) => (
          <RulesEditor key={key} value={child} path={[...path, key]} onChange={onChange} />
        ))}
      </fieldset>
    )
  }
  if (Array.isArray(value)) {
    return (
      <label class="text">
        {label}
        <input
          name={name}
          value={value.join(', ')}
          onInput={(e) =>
            onChange(
              path,
              e.currentTarget.value
                .split(',')
                .map((part) => part.trim())
                .filter(Boolean)
                .map((part) => (/^\d+$/.test(part) ? Number(part) : part)),
            )
          }
        />
      </label>
    )
  }
  return null
}

function withValue(rules: unknown, path: string[], value: unknown): unknown {
  if (path.length === 0) return value
  const [head, ...rest] = path
  const object = (rules && typeof rules === 'object' ? rules : {}) as Record<string, unknown>
  return { ...object, [head!]: withValue(object[head!], rest, value) }
}

function AlertRules() {
  const loaded = useApi<Rules>(userPath('/alert-rules'))
  const [rules, setRules] = useState<Rules | undefined>()
  const [error, setError] = useState<ApiError | undefined>()
  const [notice, setNotice] = useState<string | undefined>()
  useEffect(() => setRules(loaded.data), [loaded.data])
  const save = async (event: Event) => {
    event.preventDefault()
    setError(undefined)
    setNotice(undefined)
    try {
      const { data } = await request<Rules>('PUT', userPath('/alert-rules'), rules)
      setRules(data)
      setNotice(t('saved'))
    } catch (err) {
      setError(err as ApiError)
    }
  }
  return (
    <Section title={t('alertRules')}>
      <Loading when={loaded.loading && !rules} />
      <Failure error={loaded.error} retry={loaded.reload} />
      {rules && (
        <form class="rules" onSubmit={(event) => void save(event)}>
          <RulesEditor
            value={rules}
            path={[]}
            onChange={(path, value) => setRules((r) => withValue(r, path, value) as Rules)}
          />
          {error && (
            <p class="failure" role="alert">
              {[error.message, ...error.details.map((d) => `${d.field}: ${d.message}`)].join(' · ')}
            </p>
          )}
          {notice && (
            <p class="notice" role="status">
              {notice}
            </p>
          )}
          <button type="submit" class="primary">
            {t('save')}
          </button>
        </form>
      )}
    </Section>
  )
}

export function SettingsPage({ user, onLanguage }: { user: User | undefined; onLanguage: (tag: string) => void }) {
  const phones = useApi<UserPhone[]>(userPath('/push-tokens'))
  const [error, setError] = useState<ApiError | undefined>()
  const chooseLanguage = async (tag: string) => {
    setError(undefined)
    onLanguage(tag)
    try {
      await request('PATCH', userPath(), { Language: tag })
    } catch (err) {
      setError(err as ApiError)
    }
  }
  return (
    <>
      <Section title={t('language')}>
        <select
          aria-label={t('language')}
          value={language()}
          onChange={(event) => void chooseLanguage(event.currentTarget.value)}
        >
          {Object.entries(LANGUAGES).map(([tag, { name }]) => (
            <option key={tag} value={tag}>
              {name}
            </option>
          ))}
        </select>
        <Failure error={error} />
        {user?.Email && <p class="muted">{user.Email}</p>}
      </Section>
      <AlertRules />
      <Section title={t('phones')}>
        <Loading when={phones.loading && !phones.data} />
        <Failure error={phones.error} retry={phones.reload} />
        {phones.data && phones.data.length === 0 && <p class="muted">{t('noPhones')}</p>}
        <ul class="phones">
          {(phones.data ?? []).map((phone) => (
            <li key={phone.Token}>
              <strong>{phone.CustomName || phone.Name}</strong>{' '}
              <span class="pill">{phone.Rank ? t(`rank_${phone.Rank}` as TextKey) : '–'}</span>{' '}
              <span class="muted">{formatDateTime(phone.t)}</span>
            </li>
          ))}
        </ul>
      </Section>
    </>
  )
}
