import { plainToInstance } from 'class-transformer';
import { ValidationFailedException } from '../common/errors/validation-failed.exception';
import { WebhookEvent } from '../common/reference/enums';
import { LicenceCreatedFailedEvent } from './licence-created-failed.event';
import { LicenceCreatedSuccessEvent } from './licence-created-success.event';
import { licenceEventBody, validatedPart } from './licence-event-body';
import { LicenceDto, LicenceErrorDto } from './licence.dto';
import { sampleEvent } from './sample-event';

const sample = sampleEvent(WebhookEvent.LICENCE_CREATED_SUCCESS, 'acme') as LicenceCreatedSuccessEvent;
const validLicence = () => ({ ...sample.licence });

/** The field errors licenceEventBody throws for `event`, or [] when it accepts it. */
function fieldErrors(event: LicenceCreatedSuccessEvent | LicenceCreatedFailedEvent): string[] {
  try {
    licenceEventBody(event);
    return [];
  } catch (error) {
    if (!(error instanceof ValidationFailedException)) throw error;
    return error.fieldErrors.map((e) => e.field);
  }
}

describe('licenceEventBody', () => {
  it('validates an in-process licence, also when it is an instance of the DTO', () => {
    const licence = plainToInstance(LicenceDto, { ...validLicence(), clientId: 0, extra: 'x' });
    expect(fieldErrors(new LicenceCreatedSuccessEvent({ tenant: 'acme', licence }))).toEqual(
      expect.arrayContaining(['licence.clientId', 'licence.extra']),
    );
  });

  it('validates an error payload that was not marked', () => {
    const error = plainToInstance(LicenceErrorDto, { message: '', type: 'Timeout' });
    expect(fieldErrors(new LicenceCreatedFailedEvent({ tenant: 'acme', error }))).toEqual(['error.message']);
  });

  it('does not validate again a part the request pipe validated (validatedPart), and still keeps only the spec fields', () => {
    // Marked parts are trusted: this one would fail validation, so an accepted body shows no second pass.
    const licence = validatedPart(
      plainToInstance(LicenceDto, { ...validLicence(), clientId: 0, extra: 'x' }),
    );
    const body = licenceEventBody(new LicenceCreatedSuccessEvent({ tenant: 'acme', licence }));
    expect(body.licence).toEqual({ ...validLicence(), clientId: 0 });
    expect(Object.keys(body.licence!)).not.toContain('extra');
  });

  it('trusts only the marked object, not another instance with the same values', () => {
    const marked = validatedPart(plainToInstance(LicenceDto, { ...validLicence(), clientId: 0 }));
    const copy = plainToInstance(LicenceDto, { ...marked });
    expect(fieldErrors(new LicenceCreatedSuccessEvent({ tenant: 'acme', licence: copy }))).toEqual([
      'licence.clientId',
    ]);
  });
});
