// A farm record's quick entry form, also used to correct one. The API validates; its `details` are shown at
// the field they name, and whatever names no field of the form is shown above it.
import { useState } from 'preact/hooks'
import { ApiError, request, userPath } from './api.ts'
import { failureAtFields } from './form-errors.ts'
import { t, type TextKey } from './i18n.ts'
import {
  bodyOf,
  collectionPath,
  fieldOfDetail,
  optionText,
  optionsWith,
  text,
  type FarmRecord,
  type FieldType,
  type RecordKind,
} from './records.ts'

function initialValues(kind: RecordKind, record: FarmRecord | undefined): Record<string, string | boolean> {
  const now = new Date()
  const values: Record<string, string | boolean> = {}
  for (const field of kind.fields) {
    const value = record ? record[field.name] : field.initial?.(now)
    values[field.name] = typeof value === 'boolean' ? value : text(value)
  }
  return values
}

/** A text-like input's type; numbers take decimals and open the phone's number pad. */
function inputTypeOf(type: FieldType) {
  if (type === 'number') return { type: 'number', inputMode: 'decimal', step: 'any' } as const
  if (type === 'date') return { type: 'date' } as const
  if (type === 'time') return { type: 'time' } as const
  return { type: 'text' } as const
}

export function RecordForm(props: {
  kind: RecordKind
  mac: string
  record?: FarmRecord
  onSaved: (record: FarmRecord) => void
  onCancel: () => void
}) {
  const { kind, mac, record } = props
  const [values, setValues] = useState(() => initialValues(kind, record))
  const [busy, setBusy] = useState(false)
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({})
  const [formError, setFormError] = useState<string | undefined>()
  const id = `form-${kind.key}`

  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setFieldErrors({})
    setFormError(undefined)
    const now = new Date()
    try {
      let saved: FarmRecord
      if (record) {
        const body = bodyOf({ ...kind, fixed: undefined }, values, mac, now)
        const path = `${collectionPath(kind, mac)}/${encodeURIComponent(record.ID)}`
        saved = (await request<FarmRecord>('PATCH', userPath(path), body)).data
      } else {
        const body = bodyOf(kind, values, mac, now)
        saved = (await request<FarmRecord>('POST', userPath(collectionPath(kind, mac)), body)).data
      }
      props.onSaved(saved)
    } catch (err) {
      const failure = err instanceof ApiError ? err : new ApiError(0, String(err))
      const names = kind.fields.map((field) => field.name)
      const { atFields, formError } = failureAtFields(failure, (field) => fieldOfDetail(field, names))
      setFieldErrors(atFields)
      setFormError(formError)
    } finally {
      setBusy(false)
    }
  }

  return (
    <form class="record-form" noValidate onSubmit={(event) => void submit(event)} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>
        {record ? `${t('correct')}: ` : ''}
        {t(kind.label)}
      </h3>
      {formError && (
        <p class="failure" role="alert">
          {formError}
        </p>
      )}
      <div class="fields">
        {kind.fields.map((field) => {
          const inputId = `${id}-${field.name}`
          const error = fieldErrors[field.name]
          const common = {
            id: inputId,
            name: field.name,
            'aria-invalid': error ? ('true' as const) : undefined,
            'aria-describedby': error ? `${inputId}-error` : undefined,
            'aria-required': field.required ? ('true' as const) : undefined,
          }
          const set = (value: string | boolean) => setValues((current) => ({ ...current, [field.name]: value }))
          return (
            <div class={error ? 'field invalid' : 'field'} key={field.name}>
              <label for={inputId}>
                {t(`field_${field.name}` as TextKey)}
                {field.required && <span aria-hidden="true"> *</span>}
              </label>
              {field.type === 'select' ? (
                <select
                  {...common}
                  value={String(values[field.name] ?? '')}
                  onChange={(e) => set(e.currentTarget.value)}
                >
                  <option value="">–</option>
                  {optionsWith(field.options ?? [], String(values[field.name] ?? '')).map((option) => (
                    <option key={option} value={option}>
                      {optionText(option)}
                    </option>
                  ))}
                </select>
              ) : field.type === 'checkbox' ? (
                <input
                  {...common}
                  type="checkbox"
                  checked={values[field.name] === true}
                  onChange={(e) => set(e.currentTarget.checked)}
                />
              ) : (
                <input
                  {...common}
                  {...inputTypeOf(field.type)}
                  value={String(values[field.name] ?? '')}
                  onInput={(e) => set(e.currentTarget.value)}
                />
              )}
              {error && (
                <p class="field-error" id={`${inputId}-error`}>
                  {error}
                </p>
              )}
            </div>
          )
        })}
      </div>
      <div class="form-actions">
        <button type="submit" class="primary" disabled={busy}>
          {t('save')}
        </button>
        <button type="button" onClick={props.onCancel}>
          {t('cancel')}
        </button>
      </div>
    </form>
  )
}
