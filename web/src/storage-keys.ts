// What the app keeps in the browser's localStorage, by key: the session, this device's choice of alerts
// (device-alerts.ts) and the id of its Web Push subscription on the service (web-push.ts), which a session's end
// clears (api.ts).
export const SESSION_KEY = 'livestock.session'
export const DEVICE_ALERTS_KEY = 'livestock.deviceAlerts'
export const WEB_PUSH_SUBSCRIPTION_KEY = 'livestock.webPushSubscription'
