import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { UserRole } from '../common/reference/enums';

/** Indexes and checks as migration CreateUsers makes them (UQ_users_email_lower: on the email property). */
@Entity({ name: 'users' })
@Index('IDX_users_tenant_id', ['tenant', 'id'])
@Check('CHK_users_role', `"role" IN ('ROLE_PARTNER', 'ROLE_CLIENT', 'ROLE_BRANCH')`)
export class User {
  @PrimaryGeneratedColumn({ type: 'integer', primaryKeyConstraintName: 'PK_users' })
  id: number;

  /** Unique case-insensitively: index UQ_users_email_lower on lower(email), made in the migration. */
  @Column({ type: 'varchar', length: 255 })
  email: string;

  @Column({ name: 'password_hash', type: 'varchar', length: 255, select: false })
  passwordHash: string;

  @Column({ type: 'varchar', length: 32 })
  role: UserRole;

  @Column({ name: 'is_administrator', type: 'boolean', default: false })
  isAdministrator: boolean;

  @Column({ type: 'boolean', default: false })
  hub: boolean;

  @Column({ type: 'varchar', length: 255 })
  tenant: string;

  @Column({ name: 'partner_id', type: 'integer' })
  partnerId: number;

  @Column({ name: 'partner_name', type: 'varchar', length: 255 })
  partnerName: string;

  @Column({ name: 'user_name', type: 'varchar', length: 255 })
  userName: string;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  /** Tokens carry the version they were issued under; older ones are refused (contract section 8). */
  @Column({ name: 'token_version', type: 'integer', default: 0 })
  tokenVersion: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
