/** A gateway's sensordata message body: `count` readings one a second from `start`, at a steady 38.2 °C, still. */
export function steadyReadings(start: number, count: number): string {
  return JSON.stringify({
    readings: Array.from({ length: count }, (_, i) => ({ t: start + i * 1000, c: 38.2, x: 0, y: 0, z: 1 })),
  })
}
