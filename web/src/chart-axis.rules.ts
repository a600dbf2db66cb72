// The time axis of the app's charts in the user's language: uPlot's own labels are American ("6/10", "6am",
// "11/28/26") whatever the language a farm chose.

const DAY_S = 86_400
const MONTH_S = 28 * DAY_S

/**
 * The labels of a time axis's ticks (Unix seconds, `increment` seconds apart): months when they are a month or more
 * apart (the year on the first and in January), days when a day or more, else times of day (the day under the
 * first and under the first tick of each new day). Local time, as the rest of the app.
 */
export function timeAxisLabels(ticks: readonly number[], increment: number, language: string): string[] {
  const format = (options: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat(language, options)
  const dates = ticks.map((seconds) => new Date(seconds * 1000))
  if (increment >= MONTH_S) {
    const month = format({ month: 'short' })
    const monthYear = format({ month: 'short', year: 'numeric' })
    return dates.map((d, i) => (i === 0 || d.getMonth() === 0 ? monthYear : month).format(d))
  }
  const day = format({ day: 'numeric', month: 'short' })
  if (increment >= DAY_S) return dates.map((d) => day.format(d))
  const time = format({ hour: 'numeric', minute: '2-digit' })
  return dates.map((d, i) => {
    const newDay = i === 0 || d.toDateString() !== dates[i - 1]!.toDateString()
    return newDay ? `${time.format(d)}\n${day.format(d)}` : time.format(d)
  })
}

/** A month (Unix seconds within it) as the monthly chart's legend names it: "Nov 2026", "Nov. 2026". */
export function monthText(seconds: number, language: string): string {
  return new Intl.DateTimeFormat(language, { month: 'short', year: 'numeric' }).format(new Date(seconds * 1000))
}
