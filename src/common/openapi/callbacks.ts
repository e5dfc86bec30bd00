import { applyDecorators, SetMetadata, Type } from '@nestjs/common';
import { ApiExtraModels, ApiOperation } from '@nestjs/swagger';
import type { PathItemObject } from '@nestjs/swagger';

/**
 * A callback is declared by the operation that registers the receiver's URL (ApiCallback) and
 * described by the feature that sends it (ApiCallbackContent on one of its controllers); the
 * document assembly joins the two by name, so neither feature imports the other.
 */

/** The licence events POSTed to a subscription's `url` (spec, Events). */
export const LICENCE_EVENT_CALLBACK = 'licenceEvent';

export const API_CALLBACK_CONTENT = 'openapi:callback-content';

export interface CallbackContent {
  name: string;
  /** The callback's request and responses; the User-Agent a receiver sees carries the version. */
  pathItem: (version: string) => PathItemObject;
}

/** On the operation: callback `name` goes to the URL the runtime `expression` names. */
export const ApiCallback = (name: string, expression: string) =>
  ApiOperation({ callbacks: { [name]: { [expression]: {} } } });

/** On a controller of the feature that sends callback `content.name`: what it sends. */
export const ApiCallbackContent = (content: CallbackContent, ...models: Type<unknown>[]) =>
  applyDecorators(SetMetadata(API_CALLBACK_CONTENT, content), ApiExtraModels(...models));
