import type { FailedTransactionMetadata } from 'litesvm';

/** LiteSVM's fieldless TransactionError values, in its enum's order. */
const TRANSACTION_ERRORS =
  'AccountInUse AccountLoadedTwice AccountNotFound ProgramAccountNotFound InsufficientFundsForFee InvalidAccountForFee AlreadyProcessed BlockhashNotFound CallChainTooDeep MissingSignatureForFee InvalidAccountIndex SignatureFailure InvalidProgramForExecution SanitizeFailure ClusterMaintenance AccountBorrowOutstanding WouldExceedMaxBlockCostLimit UnsupportedVersion InvalidWritableAccount WouldExceedMaxAccountCostLimit WouldExceedAccountDataBlockLimit TooManyAccountLocks AddressLookupTableNotFound InvalidAddressLookupTableOwner InvalidAddressLookupTableData InvalidAddressLookupTableIndex InvalidRentPayingAccount WouldExceedMaxVoteCostLimit WouldExceedAccountDataTotalLimit MaxLoadedAccountsDataSizeExceeded ResanitizationNeeded InvalidLoadedAccountsDataSizeLimit UnbalancedTransaction ProgramCacheHitMaxLimit CommitCancelled'.split(
    ' ',
  );

/** LiteSVM's fieldless InstructionError values, in its enum's order. */
const INSTRUCTION_ERRORS =
  'GenericError InvalidArgument InvalidInstructionData InvalidAccountData AccountDataTooSmall InsufficientFunds IncorrectProgramId MissingRequiredSignature AccountAlreadyInitialized UninitializedAccount UnbalancedInstruction ModifiedProgramId ExternalAccountLamportSpend ExternalAccountDataModified ReadonlyLamportChange ReadonlyDataModified DuplicateAccountIndex ExecutableModified RentEpochModified NotEnoughAccountKeys AccountDataSizeChanged AccountNotExecutable AccountBorrowFailed AccountBorrowOutstanding DuplicateAccountOutOfSync InvalidError ExecutableDataModified ExecutableLamportChange ExecutableAccountNotRentExempt UnsupportedProgramId CallDepth MissingAccount ReentrancyNotAllowed MaxSeedLengthExceeded InvalidSeeds InvalidRealloc ComputationalBudgetExceeded PrivilegeEscalation ProgramEnvironmentSetupFailure ProgramFailedToComplete ProgramFailedToCompile Immutable IncorrectAuthority AccountNotRentExempt InvalidAccountOwner ArithmeticOverflow UnsupportedSysvar IllegalOwner MaxAccountsDataAllocationsExceeded MaxAccountsExceeded MaxInstructionTraceLengthExceeded BuiltinProgramsMustConsumeComputeUnits BorshIoError'.split(
    ' ',
  );

type LiteErr = ReturnType<FailedTransactionMetadata['err']>;

/**
 * A failed transaction's error in the JSON Agave gives it in a block's meta and in signature
 * statuses: `"AccountNotFound"`, `{"InstructionError":[1,{"Custom":1}]}`,
 * `{"InsufficientFundsForRent":{"account_index":2}}`.
 */
export function transactionError(failed: FailedTransactionMetadata): unknown {
  const err: LiteErr = failed.err();
  if (typeof err === 'number') return TRANSACTION_ERRORS[err] ?? describeFailure(failed);
  if ('err' in err && typeof err.err === 'function') {
    const inner = err.err();
    if (typeof inner === 'number') return { InstructionError: [err.index, INSTRUCTION_ERRORS[inner] ?? 'GenericError'] };
    return { InstructionError: [err.index, 'code' in inner ? { Custom: inner.code } : { BorshIoError: inner.msg }] };
  }
  if ('accountIndex' in err) return { [err.constructor.name.replace(/^TransactionError/, '')]: { account_index: err.accountIndex } };
  if ('index' in err) return { DuplicateInstruction: err.index };
  return describeFailure(failed);
}

/** LiteSVM's error as text: the fieldless ones are enum numbers, so name them from its debug form. */
export function describeFailure(result: FailedTransactionMetadata): string {
  const err = result.err();
  const text = typeof err === 'object' ? `${err.constructor.name} ${JSON.stringify(err, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}` : '';
  const debug = result.toString();
  const named = /err: ([A-Za-z]+(?:\([^)]*\))?)/.exec(debug)?.[1];
  return named ?? (text || debug.slice(0, 500));
}
