// Every animal with its pinna temperature, baseline, band, activity, group and last reading; sorted,
// filtered by group and searched by MAC, ID or group; beside an animal, how many of its alerts are not resolved yet.
// A 1,000-animal herd is ten pages of the API.
import { useMemo, useState } from 'preact/hooks'
import { CYCLE_STATES } from '../../../src/modules/cycle/cycle.rules.ts'
import { eventsNeedingAttention, getAll, userPath, type Animal } from '../api.ts'
import { ageOf, bandOf, countByMac, deltaOf, lastReadingAt, matchesSearch } from '../farm.rules.ts'
import { language, t, type TextKey } from '../i18n.ts'
import { Failure, Loading, Section, formatMeasure, formatNumber, formatShare, useApi } from '../ui.tsx'

type SortKey = 'ID' | 'CurrentTemperature' | 'delta' | 'CurrentActivity' | 'Group' | 't'

const COLUMNS: { key: SortKey; label: TextKey }[] = [
  { key: 'CurrentTemperature', label: 'temperature' },
  { key: 'delta', label: 'delta' },
  { key: 'CurrentActivity', label: 'activity' },
  { key: 'Group', label: 'group' },
  { key: 't', label: 'lastReading' },
]

function sortValue(animal: Animal, key: SortKey): number | string {
  if (key === 'delta') return deltaOf(animal.CurrentTemperature, animal.ReferenceTemperature) ?? -Infinity
  if (key === 't') return lastReadingAt(animal) ?? -Infinity
  const value = animal[key]
  return typeof value === 'number' || typeof value === 'string' ? value : ''
}

/** How many of an animal's alerts still need attention: a mark to see, its words for a screen reader. */
function AlertCount({ count }: { count: number }) {
  if (count === 0) return null
  const words = (count === 1 ? t('alertsOpenOne') : t('alertsOpenMany')).replace('{n}', String(count))
  return (
    <span class="pill warning alert-count" title={words}>
      <span aria-hidden="true">! {count}</span>
      <span class="visually-hidden">{words}</span>
    </span>
  )
}

export function HerdPage() {
  const [cycleState, setCycleState] = useState('')
  const loaded = useApi<Animal[]>(userPath(cycleState ? `/animals?cycleState=${cycleState}` : '/animals'), (path) =>
    getAll<Animal>(path),
  )
  // What still needs attention, as the attention screen lists it (open and acknowledged), counted by tag.
  const alerts = useApi(userPath('/events'), () => eventsNeedingAttention<{ MAC?: string }>().then(countByMac))
  const [query, setQuery] = useState('')
  const [group, setGroup] = useState('')
  const [sort, setSort] = useState<{ key: SortKey; descending: boolean }>({ key: 'delta', descending: true })
  const animals = loaded.data ?? []
  const groups = useMemo(() => [...new Set(animals.map((a) => a.Group).filter(Boolean))].sort() as string[], [animals])
  const rows = useMemo(() => {
    const chosen = animals.filter((a) => (group === '' || a.Group === group) && matchesSearch(a, query))
    const direction = sort.descending ? -1 : 1
    return chosen.sort((a, b) => {
      const x = sortValue(a, sort.key)
      const y = sortValue(b, sort.key)
      return (x < y ? -1 : x > y ? 1 : 0) * direction
    })
  }, [animals, query, group, sort])
  const now = Date.now()
  const sortBy = (key: SortKey) =>
    setSort((current) => ({
      key,
      descending: current.key === key ? !current.descending : key !== 'ID' && key !== 'Group',
    }))

  // The count once the herd is read: while it loads, "0 animals" read as an empty farm.
  return (
    <Section
      title={loaded.data ? `${t('herd')} (${rows.length} ${t(rows.length === 1 ? 'animal' : 'animals')})` : t('herd')}
    >
      <div class="toolbar">
        <input
          type="search"
          aria-label={t('search')}
          placeholder={t('search')}
          value={query}
          onInput={(event) => setQuery(event.currentTarget.value)}
        />
        <select
          aria-label={t('cycleState')}
          value={cycleState}
          onChange={(event) => setCycleState(event.currentTarget.value)}
        >
          <option value="">{t('allStates')}</option>
          {CYCLE_STATES.map((state) => (
            <option key={state} value={state}>
              {t(`cycle_${state}`)}
            </option>
          ))}
        </select>
        <select aria-label={t('group')} value={group} onChange={(event) => setGroup(event.currentTarget.value)}>
          <option value="">{t('allGroups')}</option>
          {groups.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </div>
      <Loading when={loaded.loading && animals.length === 0} />
      <Failure error={loaded.error} retry={loaded.reload} />
      <div class="table-wrap">
        <table class="herd">
          <thead>
            <tr>
              <th scope="col">
                <button type="button" class="sort" onClick={() => sortBy('ID')}>
                  ID / MAC
                </button>
              </th>
              {COLUMNS.map((column) => (
                <th
                  scope="col"
                  key={column.key}
                  aria-sort={sort.key === column.key ? (sort.descending ? 'descending' : 'ascending') : undefined}
                >
                  <button type="button" class="sort" onClick={() => sortBy(column.key)}>
                    {t(column.label)}
                  </button>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((animal) => {
              const band = bandOf(animal.CurrentTemperature, animal.ReferenceTemperature)
              const delta = deltaOf(animal.CurrentTemperature, animal.ReferenceTemperature)
              return (
                <tr key={animal.MAC}>
                  <th scope="row">
                    <a href={`#/animal/${encodeURIComponent(animal.MAC)}`}>{animal.ID}</a>
                    <AlertCount count={alerts.data?.get(animal.MAC) ?? 0} />
                    <span class="mac">{animal.MAC}</span>
                  </th>
                  <td>
                    {formatMeasure(animal.CurrentTemperature, '°C')}
                    {typeof animal.ReferenceTemperature === 'number' && (
                      <span class="muted small">
                        {' '}
                        {t('reference')} {formatNumber(animal.ReferenceTemperature)}
                      </span>
                    )}
                  </td>
                  <td>
                    <span class={`band band-${band}`} title={t(`band_${band}`)}>
                      {delta === undefined ? '–' : `${delta > 0 ? '+' : ''}${formatNumber(delta, 2)}`}
                      <span class="visually-hidden"> {t(`band_${band}`)}</span>
                    </span>
                  </td>
                  <td>{formatShare(animal.CurrentActivity)}</td>
                  <td>{animal.Group ?? '–'}</td>
                  <td>{ageOf(lastReadingAt(animal), now, language())}</td>
                </tr>
              )
            })}
          </tbody>
        </table>
      </div>
    </Section>
  )
}
