import { Controller, Get, Header, NotFoundException, Query } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { CurrentPrincipal, Principal, Requires } from '@libs/access';
import { exportEvidenceAudited, TrailVerification, verifyTrail } from '@libs/episode-host';

import { exportQuery, verifyQuery } from './audit-query';

/**
 * The caller's tenant's evidence trail over HTTP, for reviewers and admins: the chain's check as `mirror audit verify
 * --json` prints it, and a subject's signed evidence bundle as `mirror audit export` writes it (recorded as exported,
 * under the caller's key). Another tenant's subject is a 404, as one that does not exist.
 */
@Requires('audit:read')
@Controller('v1/audit')
export class AuditController {
  constructor(private readonly dataSource: DataSource) {}

  @Get('verify')
  verify(
    @CurrentPrincipal() principal: Principal,
    @Query() query: Record<string, unknown>,
  ): Promise<TrailVerification> {
    return verifyTrail(this.dataSource, principal.tenantId, verifyQuery(query));
  }

  // Sent as the very text whose digest the export's entry records, not re-serialised by the framework.
  @Get('export')
  @Header('Content-Type', 'application/json; charset=utf-8')
  async export(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>): Promise<string> {
    const subject = exportQuery(query);
    const exported = await exportEvidenceAudited(this.dataSource, principal.tenantId, subject, {
      actor: principal.actor,
      actorKind: principal.role,
    });
    if (!exported) {
      throw new NotFoundException(`the evidence trail has no entry about ${subject.kind} ${subject.id.slice(0, 64)}`);
    }
    return exported.text;
  }
}
