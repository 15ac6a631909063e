export * from './twin-client';
export { episodeGateway, gatewayLostSince, gatewayOrder } from './gateway-pool';
export { fetchInProcess, serveInProcess } from './in-process-gateways';
