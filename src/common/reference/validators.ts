import { Matches, ValidateBy, ValidationOptions } from 'class-validator';
import { isCnpj, isCpf, PHONE_NUMBER, PHONE_NUMBER_CODE } from './formats';

export const IsCpf = (options?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'isCpf',
      validator: { validate: isCpf, defaultMessage: () => '$property must be a valid CPF (11 digits)' },
    },
    options,
  );

export const IsCnpj = (options?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'isCnpj',
      validator: { validate: isCnpj, defaultMessage: () => '$property must be a valid CNPJ (14 digits)' },
    },
    options,
  );

export const IsPhoneNumber = (options?: ValidationOptions) =>
  Matches(PHONE_NUMBER, { message: '$property must be digits only: area code plus number', ...options });

export const IsPhoneNumberCode = (options?: ValidationOptions) =>
  Matches(PHONE_NUMBER_CODE, { message: '$property must be a country code with a plus sign', ...options });
