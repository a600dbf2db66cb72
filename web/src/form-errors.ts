// Where an API refusal shows in a form: each `details` entry at the field it names (several joined), and the
// message above the form only when some detail names no field of the form (or there is none).

export interface FormFailure {
  /** Messages by the form's field name. */
  atFields: Record<string, string>
  /** What to say above the form, or undefined when every detail sits at its field. */
  formError: string | undefined
}

export function failureAtFields(
  failure: { message: string; details: readonly { field: string; message: string }[] },
  fieldOf: (detailField: string) => string | undefined,
): FormFailure {
  const atFields: Record<string, string> = {}
  const elsewhere: string[] = []
  for (const detail of failure.details) {
    const field = fieldOf(detail.field)
    if (field) atFields[field] = atFields[field] ? `${atFields[field]}; ${detail.message}` : detail.message
    else elsewhere.push(`${detail.field}: ${detail.message}`)
  }
  const formError =
    Object.keys(atFields).length > 0 && elsewhere.length === 0 ? undefined : [failure.message, ...elsewhere].join(' · ')
  return { atFields, formError }
}
