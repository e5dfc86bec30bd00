import { Module } from '@nestjs/common';
import { EventTypesController } from './event-types.controller';

/** The event-type catalogue: read-only, built from the event bodies' decorators, no storage. */
@Module({ controllers: [EventTypesController] })
export class EventTypesModule {}
