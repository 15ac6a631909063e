export * from './twin-client';
export { episodeGateway, gatewayLostSince, gatewayOrder } from './gateway-pool';
