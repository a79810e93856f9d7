// The errors of the retention command that are its own.
import { CliError, ExitCode } from '../errors.js';

/** A droplet, volume or resource that is not there: exit 5, as a 404 is. */
export class NotFoundTarget extends CliError {
  constructor(message: string, details: string[] = []) {
    super(message, ExitCode.notFound, details);
  }
}

/** retention --check (and status's guard): the newest proven backup is about to expire: exit 16. */
export class RetentionGuardError extends CliError {
  constructor(message: string, details: string[] = []) {
    super(message, ExitCode.retentionGuard, details);
  }
}
