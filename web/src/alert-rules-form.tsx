// The farm's alert rules as a form a farmer reads: each kind of alert by its title, whether it is raised and which
// roles get it on their phone; the thresholds in words with their units and bounds; quiet hours per role; the time
// zone. The API validates (the form does not); its `details` are shown at the field they name. Probabilities read
// and are typed in percent, the API's document keeps them 0–1 (alert-rules.ts converts both ways).
import { useEffect, useState } from 'preact/hooks'
import { EVENT_TYPES, RANKS, type EventType, type Rank } from '../../src/modules/events/event-kinds.ts'
import { eventTitle } from '../../src/modules/events/event-texts.ts'
import { THRESHOLD_NAMES } from '../../src/modules/events/alert-thresholds.ts'
import type { AlertRules, QuietHours } from '../../src/modules/events/alert-rules.rules.ts'
import {
  NEW_QUIET_HOURS,
  draftsOf,
  ruleFieldOf,
  ruleMessage,
  rulesBody,
  thresholdInput,
  thresholdUnit,
  type RulesDocument,
  type ThresholdDrafts,
} from './alert-rules.ts'
import { ApiError, currentSession, request, userPath } from './api.ts'
import { failureAtFields } from './form-errors.ts'
import { language, t, type TextKey } from './i18n.ts'
import { Failure, Loading, Section, formatDateTime, useApi } from './ui.tsx'

/** The time zones to choose from: the browser's, with UTC and the farm's own first. */
function timeZones(current: string): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : []
  return [...new Set([current, 'UTC', ...known])]
}

function FieldError({ id, error }: { id: string; error: string | undefined }) {
  if (!error) return null
  return (
    <p class="field-error" id={id}>
      {error}
    </p>
  )
}

function invalid(id: string, error: string | undefined) {
  return error ? { 'aria-invalid': 'true' as const, 'aria-describedby': id } : {}
}

export function AlertRulesForm() {
  const loaded = useApi<RulesDocument>(userPath('/alert-rules'))
  const [rules, setRules] = useState<RulesDocument | undefined>()
  const [drafts, setDrafts] = useState<ThresholdDrafts | undefined>()
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({})
  const [formError, setFormError] = useState<string | undefined>()
  const [notice, setNotice] = useState<string | undefined>()
  const [busy, setBusy] = useState(false)

  const show = (document: RulesDocument) => {
    setRules(document)
    setDrafts(draftsOf(document))
  }
  useEffect(() => {
    if (loaded.data) show(loaded.data)
  }, [loaded.data])

  const write = async (body: unknown) => {
    setBusy(true)
    setFieldErrors({})
    setFormError(undefined)
    setNotice(undefined)
    try {
      show((await request<RulesDocument>('PUT', userPath('/alert-rules'), body)).data)
      setNotice(t('saved'))
    } catch (err) {
      const failure = err instanceof ApiError ? err : new ApiError(0, String(err))
      if (failure.status === 409) {
        // Someone else saved the rules while this form was open: show theirs, the change is to be made again.
        setFormError(t('rulesChangedMeanwhile'))
        loaded.reload()
        return
      }
      const details = failure.details.map((detail) => ({
        ...detail,
        message: ruleMessage(detail.field, detail.message),
      }))
      const { atFields, formError } = failureAtFields({ message: failure.message, details }, ruleFieldOf)
      setFieldErrors(atFields)
      setFormError(formError)
    } finally {
      setBusy(false)
    }
  }

  const setKind = (type: EventType, change: (rule: AlertRules['kinds'][EventType]) => AlertRules['kinds'][EventType]) =>
    setRules((current) => current && { ...current, kinds: { ...current.kinds, [type]: change(current.kinds[type]) } })
  const setQuiet = (rank: Rank, window: QuietHours | null) =>
    setRules((current) => current && { ...current, quietHours: { ...current.quietHours, [`${rank}`]: window } })

  return (
    <Section title={t('alertRules')}>
      <Loading when={loaded.loading && !rules} />
      <Failure error={loaded.error} retry={loaded.reload} />
      {rules && drafts && (
        <form
          class="rules"
          noValidate
          onSubmit={(event) => {
            event.preventDefault()
            void write(rulesBody(rules, drafts))
          }}
        >
          <p class="muted">
            {rules.updatedAt === null
              ? t('rulesDefault')
              : t('rulesChanged')
                  .replace('{when}', formatDateTime(rules.updatedAt))
                  .replace('{who}', rules.updatedBy === currentSession()?.uid ? t('you') : (rules.updatedBy ?? '–'))}
          </p>
          {formError && (
            <p class="failure" role="alert">
              {formError}
            </p>
          )}

          <fieldset>
            <legend>{t('alertKinds')}</legend>
            <p class="muted">{t('alertKindsHint')}</p>
            <div class="table-wrap">
              <table class="kinds">
                <thead>
                  <tr>
                    <th scope="col">{t('alertKind')}</th>
                    <th scope="col">{t('alertOn')}</th>
                    {RANKS.map((rank) => (
                      <th scope="col" key={rank}>
                        {t(`rank_${rank}` as TextKey)}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {EVENT_TYPES.map((type) => {
                    const title = eventTitle(type, language())
                    const rule = rules.kinds[type]
                    const error = fieldErrors[`kinds.${type}`]
                    return (
                      <tr key={type}>
                        <th scope="row">
                          {title}
                          <FieldError id={`kind-${type}-error`} error={error} />
                        </th>
                        <td>
                          <label class="cell">
                            <input
                              type="checkbox"
                              aria-label={`${title}: ${t('alertOn')}`}
                              checked={rule.enabled}
                              onChange={(e) => setKind(type, (r) => ({ ...r, enabled: e.currentTarget.checked }))}
                              {...invalid(`kind-${type}-error`, error)}
                            />
                            <span class="cell-label" aria-hidden="true">
                              {t('alertOn')}
                            </span>
                          </label>
                        </td>
                        {RANKS.map((rank) => (
                          <td key={rank}>
                            <label class="cell">
                              <input
                                type="checkbox"
                                aria-label={`${title}: ${t(`rank_${rank}` as TextKey)}`}
                                checked={rule.notifyRanks.includes(rank)}
                                disabled={!rule.enabled}
                                onChange={(e) => {
                                  const on = e.currentTarget.checked
                                  setKind(type, (r) => ({
                                    ...r,
                                    notifyRanks: RANKS.filter((each) =>
                                      each === rank ? on : r.notifyRanks.includes(each),
                                    ),
                                  }))
                                }}
                              />
                              <span class="cell-label" aria-hidden="true">
                                {t(`rank_${rank}` as TextKey)}
                              </span>
                            </label>
                          </td>
                        ))}
                      </tr>
                    )
                  })}
                </tbody>
              </table>
            </div>
          </fieldset>

          <fieldset>
            <legend>{t('thresholds')}</legend>
            <div class="fields">
              {THRESHOLD_NAMES.map((name) => {
                const input = thresholdInput(name)
                const id = `threshold-${name}`
                const error = fieldErrors[`thresholds.${name}`]
                return (
                  <div class={error ? 'field invalid' : 'field'} key={name}>
                    <label for={id}>
                      {t(`threshold_${name}` as TextKey)} <span class="unit">{t(`unit_${thresholdUnit(name)}`)}</span>
                    </label>
                    <input
                      id={id}
                      name={name}
                      type="number"
                      inputMode="decimal"
                      min={input.min}
                      max={input.max}
                      step={input.step}
                      value={drafts[name]}
                      onInput={(e) => {
                        const text = e.currentTarget.value
                        setDrafts((current) => current && { ...current, [name]: text })
                      }}
                      {...invalid(`${id}-error`, error)}
                    />
                    <FieldError id={`${id}-error`} error={error} />
                  </div>
                )
              })}
            </div>
          </fieldset>

          <fieldset>
            <legend>{t('quietHours')}</legend>
            <p class="muted">{t('quietHoursHint')}</p>
            {RANKS.map((rank) => {
              const window = rules.quietHours[`${rank}`]
              const role = t(`rank_${rank}` as TextKey)
              const error = fieldErrors[`quietHours.${rank}`]
              const errorId = `quiet-${rank}-error`
              return (
                <div class={error ? 'quiet field invalid' : 'quiet field'} key={rank}>
                  <label class="switch">
                    <input
                      type="checkbox"
                      checked={window !== null}
                      onChange={(e) => setQuiet(rank, e.currentTarget.checked ? NEW_QUIET_HOURS : null)}
                    />{' '}
                    {role}
                  </label>
                  {window && (
                    <>
                      <label>
                        {t('quietFrom')}{' '}
                        <input
                          type="time"
                          aria-label={`${role}: ${t('quietHours')} ${t('quietFrom')}`}
                          value={window.start}
                          onInput={(e) => setQuiet(rank, { ...window, start: e.currentTarget.value })}
                          {...invalid(errorId, error)}
                        />
                      </label>
                      <label>
                        {t('quietTo')}{' '}
                        <input
                          type="time"
                          aria-label={`${role}: ${t('quietHours')} ${t('quietTo')}`}
                          value={window.end}
                          onInput={(e) => setQuiet(rank, { ...window, end: e.currentTarget.value })}
                          {...invalid(errorId, error)}
                        />
                      </label>
                    </>
                  )}
                  <FieldError id={errorId} error={error} />
                </div>
              )
            })}
            <div class={fieldErrors.timeZone ? 'field invalid' : 'field'}>
              <label for="rules-time-zone">{t('timeZone')}</label>
              <select
                id="rules-time-zone"
                value={rules.timeZone}
                onChange={(e) => {
                  const zone = e.currentTarget.value
                  setRules((current) => current && { ...current, timeZone: zone })
                }}
                {...invalid('rules-time-zone-error', fieldErrors.timeZone)}
              >
                {timeZones(rules.timeZone).map((zone) => (
                  <option key={zone} value={zone}>
                    {zone}
                  </option>
                ))}
              </select>
              <FieldError id="rules-time-zone-error" error={fieldErrors.timeZone} />
            </div>
          </fieldset>

          {notice && (
            <p class="notice" role="status">
              {notice}
            </p>
          )}
          <div class="form-actions">
            <button type="submit" class="primary" disabled={busy}>
              {t('save')}
            </button>
            <button type="button" disabled={busy} onClick={() => void write({ updatedAt: rules.updatedAt })}>
              {t('restoreDefaults')}
            </button>
          </div>
        </form>
      )}
    </Section>
  )
}
