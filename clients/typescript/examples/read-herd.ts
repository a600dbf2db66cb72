// Reads a farm's herd as an integrator: the five warmest animals against their reference temperature,
// then the last week of the warmest one's ear-tag readings.
import { createLivestockClient, LivestockApiError } from '@livestock-api/client'

const userId = process.argv[2] ?? 'demo-farm'
const api = createLivestockClient({
  baseUrl: process.env.API_URL ?? 'http://localhost:3000',
  auth: { integratorUID: process.env.INTEGRATOR_UID ?? '', clientSecret: process.env.CLIENT_SECRET },
  headers: { 'user-agent': 'read-herd-example/1.0' },
})

try {
  const herd = await api.GET('/api/v1/users/{userId}/animals', {
    params: { path: { userId }, query: { sortBy: 'CurrentTemperature', sortOrder: 'desc', limit: 5 } },
  })
  console.log(`${herd.pagination.total} animals on ${userId}; the warmest:`)
  for (const animal of herd.data) {
    console.log(
      `  ${animal.MAC}  ${animal.CurrentTemperature?.toFixed(2) ?? '-'} °C  (reference ${animal.ReferenceTemperature?.toFixed(2) ?? '-'} °C)`,
    )
  }
  const warmest = herd.data[0]
  if (warmest) {
    const week = await api.GET('/api/v1/users/{userId}/animals/{animalMac}/sensordata/analytics', {
      params: { path: { userId, animalMac: warmest.MAC }, query: { timeRange: '7d' } },
    })
    const { averageTemperature, dataPointsCount } = week.data
    console.log(
      `${warmest.MAC}, last 7 days: ${dataPointsCount} readings, mean ${averageTemperature?.toFixed(2) ?? '-'} °C`,
    )
  }
} catch (err) {
  if (!(err instanceof LivestockApiError)) throw err
  // status, the envelope's error text, and the id the service logged the request under
  console.error(`${err.status} ${err.error} (request ${err.requestId ?? '-'})`)
  process.exitCode = 1
}
