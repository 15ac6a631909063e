export * from './twin-client';
export { gatewayOrder } from './gateway-pool';
