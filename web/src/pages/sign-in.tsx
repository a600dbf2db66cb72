import { useState } from 'preact/hooks'
import { ApiError, sessionEnded, signIn } from '../api.ts'
import { t } from '../i18n.ts'

export function SignInPage() {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | undefined>()

  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      await signIn(email.trim(), password)
    } catch (err) {
      setError(err instanceof ApiError && err.status === 429 ? t('tooManyRequests') : (err as Error).message)
      setBusy(false)
    }
  }

  return (
    <main class="sign-in" id="main">
      <form class="card" onSubmit={(event) => void submit(event)} aria-labelledby="sign-in-title">
        <img src="./icon.svg" alt="" width="56" height="56" />
        <h1 id="sign-in-title">{t('signIn')}</h1>
        {sessionEnded() && !error && (
          <p class="notice" role="status">
            {t('sessionEnded')}
          </p>
        )}
        <label>
          {t('email')}
          <input
            type="email"
            name="email"
            autoComplete="username"
            required
            value={email}
            onInput={(event) => setEmail(event.currentTarget.value)}
          />
        </label>
        <label>
          {t('password')}
          <input
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onInput={(event) => setPassword(event.currentTarget.value)}
          />
        </label>
        {error && (
          <p class="failure" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? t('signingIn') : t('signIn')}
        </button>
      </form>
    </main>
  )
}
