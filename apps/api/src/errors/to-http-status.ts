import { HttpStatus } from '@nestjs/common';

import { IngestionErrorCode } from '@libs/stack-ingestion';

export const ingestionStatus = (code: IngestionErrorCode): HttpStatus => {
  switch (code) {
    case 'BUNDLE_NOT_FOUND':
    case 'DOCUMENT_UNPARSABLE':
    case 'ARCHIVE_INVALID':
      return HttpStatus.BAD_REQUEST;
    case 'BUNDLE_TOO_LARGE':
      return HttpStatus.PAYLOAD_TOO_LARGE;
    case 'MANIFEST_INVALID':
    case 'REFERENCE_INVALID':
    case 'SPECIFICATION_INVALID':
    case 'DATA_SCHEMA_INVALID':
    case 'SCENARIO_INVALID':
    case 'POLICY_INVALID':
      return HttpStatus.UNPROCESSABLE_ENTITY;
  }
};
