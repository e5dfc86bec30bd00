// Route metadata shared with the OpenAPI document assembly, which imports no feature.
export { IS_PUBLIC, Public } from '../../http/public-route';
