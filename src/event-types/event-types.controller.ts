import { Controller, Get, NotFoundException, Param, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Roles } from '../common/auth/decorators/roles.decorator';
import { ApiErrors, ApiPageOf, ApiPageQuery } from '../common/openapi/decorators';
import { Page, pageOffset, toPage } from '../common/paging/page';
import { PageQueryDto } from '../common/paging/page-query.dto';
import { UserRole, WebhookEvent } from '../common/reference/enums';
import { LICENCE_EVENT_BODIES } from '../licence-events/licence-event-bodies';
import { EventTypeResponse } from './dto/event-type.response';
import { EVENT_TYPE_CATALOGUE, EVENT_TYPES_PATH } from './event-type-catalogue';

const FORBIDDEN: [number, string] = [403, 'Only ROLE_PARTNER users and administrators use /webhooks/**'];

/**
 * The event-type catalogue (contract section 11): what each event means and the JSON Schema of the
 * body its receivers get. ROLE_PARTNER users and administrators; anyone else 403 (contract section 3).
 */
@ApiTags('Webhook event types')
@ApiExtraModels(...Object.values(LICENCE_EVENT_BODIES))
@Roles(UserRole.ROLE_PARTNER)
@Controller(EVENT_TYPES_PATH.slice(1))
export class EventTypesController {
  @ApiOperation({
    summary: 'List the event types',
    description:
      'Every event type a subscription can list, with the JSON Schema (2020-12) of the body delivered ' +
      'for it and an example body. The schemas are the OpenAPI components LicenceCreatedSuccessEvent ' +
      'and LicenceCreatedFailedEvent, written as standalone JSON Schema documents.',
  })
  @ApiPageQuery()
  @ApiPageOf(EventTypeResponse, 'A page of event types')
  @ApiErrors([400, 'Invalid page or size'], 401, FORBIDDEN, 429)
  @Get()
  list(@Query() query: PageQueryDto): Page<EventTypeResponse> {
    // A page envelope like every other list (contract section 4), though every type fits on the first page.
    const offset = pageOffset(query.page, query.size);
    const content = offset === undefined ? [] : EVENT_TYPE_CATALOGUE.slice(offset, offset + query.size);
    return toPage(content, EVENT_TYPE_CATALOGUE.length, query.page, query.size, EVENT_TYPES_PATH, {});
  }

  @ApiOperation({ summary: 'An event type', description: 'One entry of the catalogue, by its name.' })
  @ApiParam({
    name: 'name',
    required: true,
    description: 'The event type',
    schema: { type: 'string', example: WebhookEvent.LICENCE_CREATED_SUCCESS },
  })
  @ApiOkResponse({ type: EventTypeResponse, description: 'The event type' })
  @ApiErrors(401, FORBIDDEN, [404, 'No event type of that name'], 429)
  @Get(':name')
  get(@Param('name') name: string): EventTypeResponse {
    const eventType = EVENT_TYPE_CATALOGUE.find((entry) => entry.name === name);
    if (!eventType) throw new NotFoundException('No such event type');
    return eventType;
  }
}
