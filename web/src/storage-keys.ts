// What the app keeps in the browser's localStorage, by key: the session, and this device's choice of alerts
// (device-alerts.ts), which a session's end clears (api.ts).
export const SESSION_KEY = 'livestock.session'
export const DEVICE_ALERTS_KEY = 'livestock.deviceAlerts'
