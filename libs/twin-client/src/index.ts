export * from './twin-client';
export { gatewayLostSince, gatewayOrder } from './gateway-pool';
