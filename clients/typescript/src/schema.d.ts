/**
 * Generated from the service's OpenAPI document by `npm run client:generate` (openapi-typescript).
 * Do not edit: regenerate, and a test fails while this file differs from what the service serves.
 */

export interface paths {
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics of this process (text exposition format); keep it off the public interface */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1.0/config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Configured ledgers with their assets, fee levels and address formats */
        get: operations["getConfig"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1.0/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Version and health of every dependency; answers 200 even when one is down */
        get: operations["getStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1.0/ledgers/{ledgerId}/addresses/{address}/valid": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Whether an address is a valid recipient on the ledger (also for built-in ledger ids without a back end) */
        get: operations["getLedgersLedgerIdAddressesAddressValid"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1.0/ledgers/{ledgerId}/address-from-publickey": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Addresses for public keys (DER SPKI hex, raw 65/33-byte secp256k1, raw 32-byte ed25519); at most 10000 keys; also for built-in ledger ids without a back end */
        post: operations["postLedgersLedgerIdAddressFromPublickey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1.0/ledgers/{ledgerId}/addresses/{address}/balance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Balances of one address, in asset units as decimal strings */
        get: operations["getLedgersLedgerIdAddressesAddressBalance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1.0/admin/vaults": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List registered vaults */
        get: operations["getAdminVaults"];
        put?: never;
        /** Register a vault: by id alone (its key, or with coin and account its BIP44 account backup, read from the custody service), or with its public key or BIP44 account backup given. A further account of a registered BIP44 vault is added to it. */
        post: operations["postAdminVaults"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1.0/admin/vaults/{vaultId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a registered vault with the addresses it currently controls */
        get: operations["getAdminVaultsVaultId"];
        put?: never;
        post?: never;
        /** Remove a vault from the registry */
        delete: operations["deleteAdminVaultsVaultId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1.0/vaults/{vaultId}/balance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Balance of a vault; a BIP44 vault sums its receive and change addresses */
        get: operations["getVaultsVaultIdBalance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/{coinType}/api/v1.0/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Coin-type status (revision 1.0.1811): the ledger back end and the custody service; 500 when not operational */
        get: operations["getCoinTypeStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1.0/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This OpenAPI 3.1 document */
        get: operations["getOpenapiJson"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1.0/vaults/{vaultId}/withdrawals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A vault's withdrawals, newest first */
        get: operations["getVaultsVaultIdWithdrawals"];
        put?: never;
        /** Build a withdrawal and start quorum signing at the custody service */
        post: operations["postVaultsVaultIdWithdrawals"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1.0/vaults/{vaultId}/withdrawals/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Where a withdrawal stands: EXECUTING → SIGNED → BROADCAST → CONFIRMED, or FAILED with a reason */
        get: operations["getVaultsVaultIdWithdrawalsId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1.0/vaults/{vaultId}/withdrawals/{id}/speed-up": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Replace a broadcast withdrawal by the same transfer with a higher fee (a new sign request) */
        post: operations["postVaultsVaultIdWithdrawalsIdSpeedUp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1.0/vaults/{vaultId}/withdrawals/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel a withdrawal: still waiting for signatures, its custody sign operation is canceled; broadcast, it is replaced by a transaction that sends the funds back to the vault (a new sign request) */
        post: operations["postVaultsVaultIdWithdrawalsIdCancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1.0/sign_complete_callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Signing completion callback from the custody service */
        post: operations["postSignCompleteCallback"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1.0/admin/withdrawals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Withdrawals of every vault, newest first, filtered by status, ledger, vault, stuck and creation time */
        get: operations["getAdminWithdrawals"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1.0/admin/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Webhook subscriptions (without their secrets), in creation order, a page at a time */
        get: operations["getAdminWebhooks"];
        put?: never;
        /** Subscribe a URL to withdrawal events; the signing secret is shown in this answer only */
        post: operations["postAdminWebhooks"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1.0/admin/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete a subscription; its undelivered events are cancelled */
        delete: operations["deleteAdminWebhooksId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1.0/admin/webhooks/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Queue a signed webhook.test event to the subscription; follow it in its deliveries */
        post: operations["postAdminWebhooksIdTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1.0/admin/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A subscription's deliveries, newest first, with attempts and the receiver's last answer */
        get: operations["getAdminWebhooksIdDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1.0/admin/webhooks/{id}/deliveries/{deliveryId}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a failed delivery again (a fresh retry schedule); later events of its withdrawal follow it */
        post: operations["postAdminWebhooksIdDeliveriesDeliveryIdRetry"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1.0/vaults/{vaultId}/deposits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A vault's deposits, newest first: DETECTED, CONFIRMED at the ledger's confirmations, or REVERTED by a reorganisation */
        get: operations["getVaultsVaultIdDeposits"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1.0/admin/deposits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Deposits of every vault, newest first, filtered by ledger, vault, asset, state and detection time */
        get: operations["getAdminDeposits"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1.0/admin/deposits/backfill": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Look for a vault's deposits in earlier blocks: from fromHeight up to the block the live scan has read, for that vault's addresses, beside the live scan. Deposits found are told like any other (deposit.detected, deposit.confirmed), once even if the live scan found them too. Replaces the vault's back-fill before, if one runs. */
        post: operations["postAdminDepositsBackfill"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1.0/admin/deposits/backfill/{vaultId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The vault's latest back-fill: its range, how far it has read, what it found */
        get: operations["getAdminDepositsBackfillVaultId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/queues": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Job dashboard (bull-board): HTML pages, and bull-board's own JSON API under /admin/queues/api/…; read-only unless DASHBOARD_READ_ONLY=false */
        get: operations["getAdminQueues"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description Wallet-layer error body; further fields may carry figures of the error */
        AppError: {
            title: string;
            details: string;
            errCode: string;
            type: string;
            /** @description ERR_INVALID_ARGUMENTS: the valid values */
            valid?: string[];
            /** @description A built-in ledger id without a back end on this service */
            notConfigured?: boolean;
            /** @description The request field at fault */
            field?: string;
            /** @description Index of the item at fault (keys[i]) */
            index?: number;
            /** @description ERR_VERIFICATION_FAILED: why the callback failed verification */
            reason?: string;
            address?: string;
            /** @description ERR_INSUFFICIENT_FUNDS: the asset that is short */
            asset?: string;
            /** @description ERR_INSUFFICIENT_FUNDS: what the withdrawal needs, asset units */
            required?: string;
            /** @description ERR_INSUFFICIENT_FUNDS: what can be spent, asset units */
            available?: string;
            /** @description ERR_INSUFFICIENT_FUNDS: the fee part, in units of feeAsset */
            fee?: string;
            feeAsset?: string;
            requiredBaseUnits?: string;
            availableBaseUnits?: string;
            feeBaseUnits?: string;
        } & {
            [key: string]: unknown;
        };
        AddressBalanceResponse: {
            address: string;
            balances: {
                asset: string;
                /** @description Decimal string in asset units */
                amount: string;
            }[];
        };
        VaultBalanceResponse: {
            vaultId: string;
            balances: {
                asset: string;
                /** @description Decimal string in asset units */
                amount: string;
            }[];
            address?: string;
            coin?: string;
            account?: string;
        };
        CoinTypeStatus: {
            version: string;
            ledger: {
                healthy: boolean;
                errorMessage?: string;
                /** @description withDetails=true: latest height the back end reports */
                height?: number;
                /** @description withDetails=true: the network the back end reports */
                network?: string;
            };
            custody: {
                healthy: boolean;
                errorMessage?: string;
            };
        };
        WithdrawalRequest: {
            recipientAddress?: string;
            recipientVault?: string;
            asset?: string;
            /** @description Asset units; a string keeps every digit */
            amount: number | string;
            description: string;
            /** @description HIGH, MEDIUM, LOW or a custom constant (see GET /config) */
            fee?: string;
            /** @description Ledger memo where the ledger has one (Stellar) */
            memo?: string;
            /** @description Solana: pay an owner off the ed25519 curve (a program-derived address, which no private key controls: only its program moves what it holds), refused without it. Other ledgers ignore it */
            allowOffCurveRecipient?: boolean;
        };
        ReplacementRequest: {
            /** @description HIGH, MEDIUM, LOW or a custom constant in the ledger's unit; default one level up and at least the ledger's replacement minimum */
            fee?: string;
        };
        WebhookSubscription: {
            id: string;
            url: string;
            events: string[];
            description?: string;
            createdAt: string;
        };
        WebhookDelivery: {
            id: string;
            subscriptionId: string;
            eventId: string;
            type: string;
            withdrawalId?: string;
            sequence?: number;
            operationID?: string;
            /** @enum {string} */
            status: "queued" | "pending" | "delivered" | "failed" | "cancelled";
            attempts: number;
            lastAttemptAt?: string;
            lastResponseStatus?: number;
            lastError?: string;
            deliveredAt?: string;
            createdAt: string;
            /** @description The event exactly as sent */
            event: unknown;
        };
        Deposit: {
            /** @description `{ledgerId}:{txid}:{index}`: where the value is on chain, the same whatever block holds it */
            depositId: string;
            ledgerId: string;
            vaultId: string;
            /** @description The vault's address that received */
            address: string;
            txid: string;
            /** @description Position in the transaction: `out:N` (Bitcoin output), `value` or `log:N` (Ethereum), `op:N` (Stellar), `ix:N` (Solana) */
            index: string;
            /** @description The asset's symbol, or the token's contract / id when the ledger is not configured with it (then credited is false) */
            asset: string;
            /** @description False for a token that is not configured: recorded, not to be credited */
            credited: boolean;
            /** @description In asset units (1.5), as balances show them; in base units when credited is false (the token's decimals are unknown) */
            amount: string;
            /** @description The amount in base units (wei, satoshis, stroops, lamports) */
            baseUnits: string;
            from: string[];
            /** @description The memo the payment carried (Stellar, or the Solana Memo program): exchanges route deposits by it */
            memo?: string;
            /** @description The muxed account id the payment named (Stellar M… addresses) */
            muxedId?: string;
            /** @description The token account that received, when not the address itself (a Solana associated token account) */
            account?: string;
            /** @description BIP44 vaults: change/index of the receiving address */
            path?: string;
            /** @enum {string} */
            state: "DETECTED" | "CONFIRMED" | "REVERTED";
            blockHeight: number;
            blockHash: string;
            /** @description Time of the block that holds it (ISO 8601) */
            blockTime: string;
            /** @description Blocks on top of and including its block, as far as the scanner has read (absent once REVERTED) */
            confirmations?: number;
            /** @description Its block left the best chain after it was CONFIRMED: look at it by hand */
            reorganisedAfterConfirmation?: boolean;
            detectedAt: string;
            confirmedAt?: string;
            revertedAt?: string;
            updatedAt: string;
        };
        DepositBackfill: {
            backfillId: string;
            ledgerId: string;
            vaultId: string;
            /** @description First block read */
            fromHeight: number;
            /** @description Last block read: where the live scan was when the back-fill was asked for */
            toHeight: number;
            /** @description The last block read so far (fromHeight - 1 before the first) */
            height: number;
            /**
             * @description RUNNING, DONE once toHeight is read, STOPPED when it could not go on (error says why)
             * @enum {string}
             */
            state: "RUNNING" | "DONE" | "STOPPED";
            /** @description Deposits to the vault in the blocks read, the ones the live scan had found too included */
            found: number;
            /** @description Of those, the ones new to the service (told by a deposit.detected event now) */
            detected: number;
            /** @description Why it waits at the moment (the node down, a reorganisation the live scan is settling) */
            waiting?: string;
            error?: string;
            createdAt: string;
            updatedAt: string;
            finishedAt?: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    getConfig: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        version: string;
                        ledgers: {
                            ledgerId: string;
                            family: string;
                            network: string;
                            scheme: string;
                            nativeAsset: {
                                symbol: string;
                                decimals: number;
                                native: boolean;
                                contract?: string;
                            };
                            assets: {
                                symbol: string;
                                decimals: number;
                                native: boolean;
                                contract?: string;
                            }[];
                            feeLevels: string[];
                            addressFormats: string[];
                            confirmations: number;
                        }[];
                    };
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    getStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        version: string;
                        healthy: boolean;
                        redis: {
                            healthy: boolean;
                            errorMessage?: string;
                        };
                        ledgers: {
                            [key: string]: {
                                healthy: boolean;
                                errorMessage?: string;
                                height?: number;
                                network?: string;
                                wrongNetwork?: boolean;
                            };
                        };
                        dependencies: {
                            [key: string]: {
                                healthy: boolean;
                                errorMessage?: string;
                            };
                        };
                    };
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    getLedgersLedgerIdAddressesAddressValid: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Ledger id, e.g. eth, btctest, stellar */
                ledgerId: string;
                address: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        address: string;
                        valid: boolean;
                    };
                };
            };
            /** @description Invalid arguments (ERR_INVALID_ARGUMENTS names the valid values) or insufficient funds (ERR_INSUFFICIENT_FUNDS) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    postLedgersLedgerIdAddressFromPublickey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Ledger id, e.g. eth, btctest, stellar */
                ledgerId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    keys: string[];
                    /** @description Address format; the ledger default when absent (see GET /config) */
                    format?: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            address: string;
                        }[];
                    };
                };
            };
            /** @description Malformed request (body not JSON) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description API key lacks the scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Invalid arguments (ERR_INVALID_ARGUMENTS names the valid values) or insufficient funds (ERR_INSUFFICIENT_FUNDS) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Too many requests from this client (its API key, else its address); retry after Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    getLedgersLedgerIdAddressesAddressBalance: {
        parameters: {
            query?: {
                /** @description Asset symbols, comma-separated, repeated or as assets[]=; the ledger's native asset when absent; '*' for every asset of the ledger */
                assets?: string | string[];
            };
            header?: never;
            path: {
                /** @description Ledger id, e.g. eth, btctest, stellar */
                ledgerId: string;
                address: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AddressBalanceResponse"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description API key lacks the scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Invalid arguments (ERR_INVALID_ARGUMENTS names the valid values) or insufficient funds (ERR_INSUFFICIENT_FUNDS) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Too many requests from this client (its API key, else its address); retry after Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description A dependency is unavailable; retry (Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    getAdminVaults: {
        parameters: {
            query?: {
                offset?: number;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        totalItems: number;
                        items: {
                            vaultId: string;
                            ledgerId: string;
                            /** @enum {string} */
                            kind: "single" | "bip44";
                            publicKey?: string;
                            addressFormat?: string;
                            address?: string;
                            bip44?: {
                                publicKey: string;
                                cpar: string;
                                bipLevel: number;
                                parentFingerprint: string | number;
                                childNumber: number;
                                coin: string;
                                account: string;
                            };
                            accounts?: {
                                publicKey: string;
                                cpar: string;
                                bipLevel: number;
                                parentFingerprint: string | number;
                                childNumber: number;
                                coin: string;
                                account: string;
                            }[];
                            description?: string;
                            createdAt: string;
                        }[];
                    };
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description API key lacks the scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    postAdminVaults: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    vaultId: string;
                    ledgerId: string;
                    publicKey?: string;
                    addressFormat?: string;
                    bip44?: {
                        publicKey: string;
                        cpar: string;
                        bipLevel: number;
                        parentFingerprint: string | number;
                        childNumber: number;
                        coin: string | number;
                        account: string | number;
                    };
                    coin?: string | number;
                    account?: string | number;
                    description?: string;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        vaultId: string;
                        ledgerId: string;
                        /** @enum {string} */
                        kind: "single" | "bip44";
                        publicKey?: string;
                        addressFormat?: string;
                        address?: string;
                        bip44?: {
                            publicKey: string;
                            cpar: string;
                            bipLevel: number;
                            parentFingerprint: string | number;
                            childNumber: number;
                            coin: string;
                            account: string;
                        };
                        accounts?: {
                            publicKey: string;
                            cpar: string;
                            bipLevel: number;
                            parentFingerprint: string | number;
                            childNumber: number;
                            coin: string;
                            account: string;
                        }[];
                        description?: string;
                        createdAt: string;
                    };
                };
            };
            /** @description Malformed request (body not JSON) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description API key lacks the scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Invalid arguments (ERR_INVALID_ARGUMENTS names the valid values) or insufficient funds (ERR_INSUFFICIENT_FUNDS) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description A back end answered with something unusable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description A dependency is unavailable; retry (Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    getAdminVaultsVaultId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                vaultId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        vaultId: string;
                        ledgerId: string;
                        /** @enum {string} */
                        kind: "single" | "bip44";
                        publicKey?: string;
                        addressFormat?: string;
                        address?: string;
                        bip44?: {
                            publicKey: string;
                            cpar: string;
                            bipLevel: number;
                            parentFingerprint: string | number;
                            childNumber: number;
                            coin: string;
                            account: string;
                        };
                        accounts?: {
                            publicKey: string;
                            cpar: string;
                            bipLevel: number;
                            parentFingerprint: string | number;
                            childNumber: number;
                            coin: string;
                            account: string;
                        }[];
                        description?: string;
                        createdAt: string;
                        addresses: {
                            address: string;
                            path?: string;
                        }[];
                    };
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description API key lacks the scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    deleteAdminVaultsVaultId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                vaultId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        vaultId: string;
                        removed: boolean;
                    };
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description API key lacks the scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    getVaultsVaultIdBalance: {
        parameters: {
            query?: {
                /** @description Asset symbols, comma-separated, repeated or as assets[]=; the ledger's native asset when absent; '*' for every asset of the ledger */
                assets?: string | string[];
                coin?: string;
                account?: string;
            };
            header?: never;
            path: {
                vaultId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VaultBalanceResponse"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description API key lacks the scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Invalid arguments (ERR_INVALID_ARGUMENTS names the valid values) or insufficient funds (ERR_INSUFFICIENT_FUNDS) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Too many requests from this client (its API key, else its address); retry after Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description A dependency is unavailable; retry (Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    getCoinTypeStatus: {
        parameters: {
            query?: {
                /** @description Adds the back end height and network to `ledger` */
                withDetails?: "true" | "false";
            };
            header?: never;
            path: {
                /** @description A configured ledger id or a built-in id (btc, btctest, eth, ethtest, stellar, stellartest, …) */
                coinType: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CoinTypeStatus"];
                };
            };
            /** @description Invalid arguments (ERR_INVALID_ARGUMENTS names the valid values) or insufficient funds (ERR_INSUFFICIENT_FUNDS) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description The ledger back end or the custody service is not operational */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CoinTypeStatus"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    getOpenapiJson: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        openapi: string;
                        info: {
                            title: string;
                            version: string;
                        } & {
                            [key: string]: unknown;
                        };
                        paths: {
                            [key: string]: unknown;
                        };
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    getVaultsVaultIdWithdrawals: {
        parameters: {
            query?: {
                offset?: number;
                limit?: number;
            };
            header?: never;
            path: {
                vaultId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        totalItems: number;
                        items: {
                            /** @description This service's own id of the withdrawal: fixed at creation, the same in every answer, webhook event, log line and job; the routes accept it */
                            withdrawalId: string;
                            /** @description The custody operation id, as in the spec sample; equal to operationID. Absent until the custody service accepted the sign request (never this service's own id) */
                            id?: string;
                            /** @description The custody service's operation id of the sign request, once the custody service accepted it; absent before (never this service's own id). A fresh 200 of the POST has it, unless the withdrawal waits for its vault's setup (setup); the routes accept it */
                            operationID?: string;
                            /** @enum {string} */
                            status: "EXECUTING" | "SIGNED" | "BROADCAST" | "CONFIRMED" | "FAILED";
                            isComplete: boolean;
                            description: string;
                            recipientVault?: string;
                            appData: {
                                request: {
                                    recipientAddress: string;
                                    recipientVault?: string;
                                    asset: string;
                                    amount: string;
                                    description: string;
                                    fee: string;
                                    memo?: string;
                                    allowOffCurveRecipient?: boolean;
                                };
                                txs: {
                                    serialized: string;
                                }[];
                            };
                            /** @description Set when the vault needed a one-time setup first (a Solana vault's durable-nonce account): made as a withdrawal of its own (setup.withdrawalId), after which this one is crafted and sent to be signed; its id and operationID come then */
                            setup?: {
                                /** @description What the setup makes: nonce-account */
                                kind: string;
                                /** @description The setup's own withdrawal: its sign request, transaction and fee */
                                withdrawalId: string;
                                /** @description Where the setup pays (the nonce address) */
                                recipientAddress: string;
                                /** @description Base units of the native asset the setup pays (the account rent), besides its fee */
                                amount: string;
                                /**
                                 * @description waiting: this withdrawal is crafted once the setup is CONFIRMED; done; failed (and so is this withdrawal)
                                 * @enum {string}
                                 */
                                status: "waiting" | "done" | "failed";
                                /** @description The setup transaction's fee, base units of the native asset, once it is done */
                                fee?: string;
                                /** @description The setup transaction, once it is done */
                                txids?: string[];
                            };
                            /** @description On a vault's setup withdrawal: the withdrawalId of the withdrawal it was made for */
                            setupFor?: string;
                            vaultId: string;
                            ledgerId: string;
                            txids: string[];
                            confirmations: number;
                            failureReason?: string;
                            /** @description Set while the node refuses the signed transaction and nothing proves it can never land: the withdrawal is not final (it may still pay), its nonce, coins, sequence or durable nonce stay claimed, and its invalidation is asked for at invalidateAfter (INVALIDATE_REFUSED_AFTER_SECONDS) */
                            refused?: {
                                since: string;
                                answer: string;
                                errCode: string;
                                invalidateAfter?: string;
                            };
                            /** @description Set while the sent transaction waits longer than STUCK_AFTER_SECONDS */
                            stuck?: {
                                since: string;
                                reason: string;
                            };
                            /** @description The original transaction, then each speed-up or cancel */
                            attempts: {
                                /** @enum {string} */
                                kind: "original" | "speed-up" | "cancel";
                                /** @enum {string} */
                                status: "signing" | "broadcast" | "replaced" | "confirmed" | "failed";
                                txids: string[];
                                /** @description Fee paid at most, base units of the native asset */
                                fee: string;
                                createdAt: string;
                                sentAt?: string;
                                /** @description The custody sign request of this attempt */
                                operationID?: string;
                                /** @description Times the signed transaction was sent again after the node dropped it */
                                rebroadcasts?: number;
                                failureReason?: string;
                                /** @description Refusals by the node that prove nothing: the transaction may still land */
                                refusals?: {
                                    at: string;
                                    /** @description The node's own words */
                                    answer: string;
                                    errCode: string;
                                    /** @description The back end that answered, where known */
                                    node?: string;
                                }[];
                            }[];
                            history: {
                                /** @enum {string} */
                                status: "EXECUTING" | "SIGNED" | "BROADCAST" | "CONFIRMED" | "FAILED";
                                at: string;
                                detail?: string;
                            }[];
                            createdAt: string;
                            updatedAt: string;
                        }[];
                    };
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description API key lacks the scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    postVaultsVaultIdWithdrawals: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: string;
            };
            path: {
                vaultId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WithdrawalRequest"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description This service's own id of the withdrawal: fixed at creation, the same in every answer, webhook event, log line and job; the routes accept it */
                        withdrawalId: string;
                        /** @description The custody operation id, as in the spec sample; equal to operationID. Absent until the custody service accepted the sign request (never this service's own id) */
                        id?: string;
                        /** @description The custody service's operation id of the sign request, once the custody service accepted it; absent before (never this service's own id). A fresh 200 of the POST has it, unless the withdrawal waits for its vault's setup (setup); the routes accept it */
                        operationID?: string;
                        /** @enum {string} */
                        status: "EXECUTING" | "SIGNED" | "BROADCAST" | "CONFIRMED" | "FAILED";
                        isComplete: boolean;
                        description: string;
                        recipientVault?: string;
                        appData: {
                            request: {
                                recipientAddress: string;
                                recipientVault?: string;
                                asset: string;
                                amount: string;
                                description: string;
                                fee: string;
                                memo?: string;
                                allowOffCurveRecipient?: boolean;
                            };
                            txs: {
                                serialized: string;
                            }[];
                        };
                        /** @description Set when the vault needed a one-time setup first (a Solana vault's durable-nonce account): made as a withdrawal of its own (setup.withdrawalId), after which this one is crafted and sent to be signed; its id and operationID come then */
                        setup?: {
                            /** @description What the setup makes: nonce-account */
                            kind: string;
                            /** @description The setup's own withdrawal: its sign request, transaction and fee */
                            withdrawalId: string;
                            /** @description Where the setup pays (the nonce address) */
                            recipientAddress: string;
                            /** @description Base units of the native asset the setup pays (the account rent), besides its fee */
                            amount: string;
                            /**
                             * @description waiting: this withdrawal is crafted once the setup is CONFIRMED; done; failed (and so is this withdrawal)
                             * @enum {string}
                             */
                            status: "waiting" | "done" | "failed";
                            /** @description The setup transaction's fee, base units of the native asset, once it is done */
                            fee?: string;
                            /** @description The setup transaction, once it is done */
                            txids?: string[];
                        };
                        /** @description On a vault's setup withdrawal: the withdrawalId of the withdrawal it was made for */
                        setupFor?: string;
                    };
                };
            };
            /** @description Malformed request (body not JSON) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description API key lacks the scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Invalid arguments (ERR_INVALID_ARGUMENTS names the valid values) or insufficient funds (ERR_INSUFFICIENT_FUNDS) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description A back end answered with something unusable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description A dependency is unavailable; retry (Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    getVaultsVaultIdWithdrawalsId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                vaultId: string;
                /** @description The withdrawal's withdrawalId (this service's own id) or its custody operationID (of the original sign request or of a speed-up or cancel) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description This service's own id of the withdrawal: fixed at creation, the same in every answer, webhook event, log line and job; the routes accept it */
                        withdrawalId: string;
                        /** @description The custody operation id, as in the spec sample; equal to operationID. Absent until the custody service accepted the sign request (never this service's own id) */
                        id?: string;
                        /** @description The custody service's operation id of the sign request, once the custody service accepted it; absent before (never this service's own id). A fresh 200 of the POST has it, unless the withdrawal waits for its vault's setup (setup); the routes accept it */
                        operationID?: string;
                        /** @enum {string} */
                        status: "EXECUTING" | "SIGNED" | "BROADCAST" | "CONFIRMED" | "FAILED";
                        isComplete: boolean;
                        description: string;
                        recipientVault?: string;
                        appData: {
                            request: {
                                recipientAddress: string;
                                recipientVault?: string;
                                asset: string;
                                amount: string;
                                description: string;
                                fee: string;
                                memo?: string;
                                allowOffCurveRecipient?: boolean;
                            };
                            txs: {
                                serialized: string;
                            }[];
                        };
                        /** @description Set when the vault needed a one-time setup first (a Solana vault's durable-nonce account): made as a withdrawal of its own (setup.withdrawalId), after which this one is crafted and sent to be signed; its id and operationID come then */
                        setup?: {
                            /** @description What the setup makes: nonce-account */
                            kind: string;
                            /** @description The setup's own withdrawal: its sign request, transaction and fee */
                            withdrawalId: string;
                            /** @description Where the setup pays (the nonce address) */
                            recipientAddress: string;
                            /** @description Base units of the native asset the setup pays (the account rent), besides its fee */
                            amount: string;
                            /**
                             * @description waiting: this withdrawal is crafted once the setup is CONFIRMED; done; failed (and so is this withdrawal)
                             * @enum {string}
                             */
                            status: "waiting" | "done" | "failed";
                            /** @description The setup transaction's fee, base units of the native asset, once it is done */
                            fee?: string;
                            /** @description The setup transaction, once it is done */
                            txids?: string[];
                        };
                        /** @description On a vault's setup withdrawal: the withdrawalId of the withdrawal it was made for */
                        setupFor?: string;
                        vaultId: string;
                        ledgerId: string;
                        txids: string[];
                        confirmations: number;
                        failureReason?: string;
                        /** @description Set while the node refuses the signed transaction and nothing proves it can never land: the withdrawal is not final (it may still pay), its nonce, coins, sequence or durable nonce stay claimed, and its invalidation is asked for at invalidateAfter (INVALIDATE_REFUSED_AFTER_SECONDS) */
                        refused?: {
                            since: string;
                            answer: string;
                            errCode: string;
                            invalidateAfter?: string;
                        };
                        /** @description Set while the sent transaction waits longer than STUCK_AFTER_SECONDS */
                        stuck?: {
                            since: string;
                            reason: string;
                        };
                        /** @description The original transaction, then each speed-up or cancel */
                        attempts: {
                            /** @enum {string} */
                            kind: "original" | "speed-up" | "cancel";
                            /** @enum {string} */
                            status: "signing" | "broadcast" | "replaced" | "confirmed" | "failed";
                            txids: string[];
                            /** @description Fee paid at most, base units of the native asset */
                            fee: string;
                            createdAt: string;
                            sentAt?: string;
                            /** @description The custody sign request of this attempt */
                            operationID?: string;
                            /** @description Times the signed transaction was sent again after the node dropped it */
                            rebroadcasts?: number;
                            failureReason?: string;
                            /** @description Refusals by the node that prove nothing: the transaction may still land */
                            refusals?: {
                                at: string;
                                /** @description The node's own words */
                                answer: string;
                                errCode: string;
                                /** @description The back end that answered, where known */
                                node?: string;
                            }[];
                        }[];
                        history: {
                            /** @enum {string} */
                            status: "EXECUTING" | "SIGNED" | "BROADCAST" | "CONFIRMED" | "FAILED";
                            at: string;
                            detail?: string;
                        }[];
                        createdAt: string;
                        updatedAt: string;
                    };
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description API key lacks the scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    postVaultsVaultIdWithdrawalsIdSpeedUp: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                vaultId: string;
                /** @description The withdrawal's withdrawalId (this service's own id) or its custody operationID (of the original sign request or of a speed-up or cancel) */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ReplacementRequest"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description This service's own id of the withdrawal: fixed at creation, the same in every answer, webhook event, log line and job; the routes accept it */
                        withdrawalId: string;
                        /** @description The custody operation id, as in the spec sample; equal to operationID. Absent until the custody service accepted the sign request (never this service's own id) */
                        id?: string;
                        /** @description The custody service's operation id of the sign request, once the custody service accepted it; absent before (never this service's own id). A fresh 200 of the POST has it, unless the withdrawal waits for its vault's setup (setup); the routes accept it */
                        operationID?: string;
                        /** @enum {string} */
                        status: "EXECUTING" | "SIGNED" | "BROADCAST" | "CONFIRMED" | "FAILED";
                        isComplete: boolean;
                        description: string;
                        recipientVault?: string;
                        appData: {
                            request: {
                                recipientAddress: string;
                                recipientVault?: string;
                                asset: string;
                                amount: string;
                                description: string;
                                fee: string;
                                memo?: string;
                                allowOffCurveRecipient?: boolean;
                            };
                            txs: {
                                serialized: string;
                            }[];
                        };
                        /** @description Set when the vault needed a one-time setup first (a Solana vault's durable-nonce account): made as a withdrawal of its own (setup.withdrawalId), after which this one is crafted and sent to be signed; its id and operationID come then */
                        setup?: {
                            /** @description What the setup makes: nonce-account */
                            kind: string;
                            /** @description The setup's own withdrawal: its sign request, transaction and fee */
                            withdrawalId: string;
                            /** @description Where the setup pays (the nonce address) */
                            recipientAddress: string;
                            /** @description Base units of the native asset the setup pays (the account rent), besides its fee */
                            amount: string;
                            /**
                             * @description waiting: this withdrawal is crafted once the setup is CONFIRMED; done; failed (and so is this withdrawal)
                             * @enum {string}
                             */
                            status: "waiting" | "done" | "failed";
                            /** @description The setup transaction's fee, base units of the native asset, once it is done */
                            fee?: string;
                            /** @description The setup transaction, once it is done */
                            txids?: string[];
                        };
                        /** @description On a vault's setup withdrawal: the withdrawalId of the withdrawal it was made for */
                        setupFor?: string;
                        vaultId: string;
                        ledgerId: string;
                        txids: string[];
                        confirmations: number;
                        failureReason?: string;
                        /** @description Set while the node refuses the signed transaction and nothing proves it can never land: the withdrawal is not final (it may still pay), its nonce, coins, sequence or durable nonce stay claimed, and its invalidation is asked for at invalidateAfter (INVALIDATE_REFUSED_AFTER_SECONDS) */
                        refused?: {
                            since: string;
                            answer: string;
                            errCode: string;
                            invalidateAfter?: string;
                        };
                        /** @description Set while the sent transaction waits longer than STUCK_AFTER_SECONDS */
                        stuck?: {
                            since: string;
                            reason: string;
                        };
                        /** @description The original transaction, then each speed-up or cancel */
                        attempts: {
                            /** @enum {string} */
                            kind: "original" | "speed-up" | "cancel";
                            /** @enum {string} */
                            status: "signing" | "broadcast" | "replaced" | "confirmed" | "failed";
                            txids: string[];
                            /** @description Fee paid at most, base units of the native asset */
                            fee: string;
                            createdAt: string;
                            sentAt?: string;
                            /** @description The custody sign request of this attempt */
                            operationID?: string;
                            /** @description Times the signed transaction was sent again after the node dropped it */
                            rebroadcasts?: number;
                            failureReason?: string;
                            /** @description Refusals by the node that prove nothing: the transaction may still land */
                            refusals?: {
                                at: string;
                                /** @description The node's own words */
                                answer: string;
                                errCode: string;
                                /** @description The back end that answered, where known */
                                node?: string;
                            }[];
                        }[];
                        history: {
                            /** @enum {string} */
                            status: "EXECUTING" | "SIGNED" | "BROADCAST" | "CONFIRMED" | "FAILED";
                            at: string;
                            detail?: string;
                        }[];
                        createdAt: string;
                        updatedAt: string;
                    };
                };
            };
            /** @description Malformed request (body not JSON) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description API key lacks the scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Invalid arguments (ERR_INVALID_ARGUMENTS names the valid values) or insufficient funds (ERR_INSUFFICIENT_FUNDS) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description A back end answered with something unusable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description A dependency is unavailable; retry (Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    postVaultsVaultIdWithdrawalsIdCancel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                vaultId: string;
                /** @description The withdrawal's withdrawalId (this service's own id) or its custody operationID (of the original sign request or of a speed-up or cancel) */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ReplacementRequest"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description This service's own id of the withdrawal: fixed at creation, the same in every answer, webhook event, log line and job; the routes accept it */
                        withdrawalId: string;
                        /** @description The custody operation id, as in the spec sample; equal to operationID. Absent until the custody service accepted the sign request (never this service's own id) */
                        id?: string;
                        /** @description The custody service's operation id of the sign request, once the custody service accepted it; absent before (never this service's own id). A fresh 200 of the POST has it, unless the withdrawal waits for its vault's setup (setup); the routes accept it */
                        operationID?: string;
                        /** @enum {string} */
                        status: "EXECUTING" | "SIGNED" | "BROADCAST" | "CONFIRMED" | "FAILED";
                        isComplete: boolean;
                        description: string;
                        recipientVault?: string;
                        appData: {
                            request: {
                                recipientAddress: string;
                                recipientVault?: string;
                                asset: string;
                                amount: string;
                                description: string;
                                fee: string;
                                memo?: string;
                                allowOffCurveRecipient?: boolean;
                            };
                            txs: {
                                serialized: string;
                            }[];
                        };
                        /** @description Set when the vault needed a one-time setup first (a Solana vault's durable-nonce account): made as a withdrawal of its own (setup.withdrawalId), after which this one is crafted and sent to be signed; its id and operationID come then */
                        setup?: {
                            /** @description What the setup makes: nonce-account */
                            kind: string;
                            /** @description The setup's own withdrawal: its sign request, transaction and fee */
                            withdrawalId: string;
                            /** @description Where the setup pays (the nonce address) */
                            recipientAddress: string;
                            /** @description Base units of the native asset the setup pays (the account rent), besides its fee */
                            amount: string;
                            /**
                             * @description waiting: this withdrawal is crafted once the setup is CONFIRMED; done; failed (and so is this withdrawal)
                             * @enum {string}
                             */
                            status: "waiting" | "done" | "failed";
                            /** @description The setup transaction's fee, base units of the native asset, once it is done */
                            fee?: string;
                            /** @description The setup transaction, once it is done */
                            txids?: string[];
                        };
                        /** @description On a vault's setup withdrawal: the withdrawalId of the withdrawal it was made for */
                        setupFor?: string;
                        vaultId: string;
                        ledgerId: string;
                        txids: string[];
                        confirmations: number;
                        failureReason?: string;
                        /** @description Set while the node refuses the signed transaction and nothing proves it can never land: the withdrawal is not final (it may still pay), its nonce, coins, sequence or durable nonce stay claimed, and its invalidation is asked for at invalidateAfter (INVALIDATE_REFUSED_AFTER_SECONDS) */
                        refused?: {
                            since: string;
                            answer: string;
                            errCode: string;
                            invalidateAfter?: string;
                        };
                        /** @description Set while the sent transaction waits longer than STUCK_AFTER_SECONDS */
                        stuck?: {
                            since: string;
                            reason: string;
                        };
                        /** @description The original transaction, then each speed-up or cancel */
                        attempts: {
                            /** @enum {string} */
                            kind: "original" | "speed-up" | "cancel";
                            /** @enum {string} */
                            status: "signing" | "broadcast" | "replaced" | "confirmed" | "failed";
                            txids: string[];
                            /** @description Fee paid at most, base units of the native asset */
                            fee: string;
                            createdAt: string;
                            sentAt?: string;
                            /** @description The custody sign request of this attempt */
                            operationID?: string;
                            /** @description Times the signed transaction was sent again after the node dropped it */
                            rebroadcasts?: number;
                            failureReason?: string;
                            /** @description Refusals by the node that prove nothing: the transaction may still land */
                            refusals?: {
                                at: string;
                                /** @description The node's own words */
                                answer: string;
                                errCode: string;
                                /** @description The back end that answered, where known */
                                node?: string;
                            }[];
                        }[];
                        history: {
                            /** @enum {string} */
                            status: "EXECUTING" | "SIGNED" | "BROADCAST" | "CONFIRMED" | "FAILED";
                            at: string;
                            detail?: string;
                        }[];
                        createdAt: string;
                        updatedAt: string;
                    };
                };
            };
            /** @description Malformed request (body not JSON) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description API key lacks the scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Invalid arguments (ERR_INVALID_ARGUMENTS names the valid values) or insufficient funds (ERR_INSUFFICIENT_FUNDS) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description A back end answered with something unusable */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description A dependency is unavailable; retry (Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    postSignCompleteCallback: {
        parameters: {
            query: {
                ledgerId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    publicKeys: string[];
                    providerData: string;
                    dataToSign: string[];
                    signatures: string[];
                    v?: number[];
                    originalEntryIds?: number[];
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        accepted: boolean;
                        /** @enum {string} */
                        outcome: "queued" | "partial" | "duplicate" | "failed" | "resend" | "pending";
                        /** @description This service's own id of the withdrawal the callback was matched to */
                        withdrawalId: string;
                        /** @description Its custody operation id, once the sign request was accepted */
                        operationID?: string;
                    };
                };
            };
            /** @description Malformed body, or the signatures failed verification (ERR_VERIFICATION_FAILED with `reason`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description x-callback-timestamp / x-callback-signature missing, outside the tolerance, or not the HMAC-SHA256 of "<timestamp>.<raw body>" under CALLBACK_SECRET */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description The caller is not on the callback allow-list (CALLBACK_ALLOWED_IPS) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description No stored operation has these digests */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description The callback does not match the stored operation (ledger, keys, digests) or the operation is final */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description A dependency is unavailable; retry (Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    getAdminWithdrawals: {
        parameters: {
            query?: {
                /** @description One or more of EXECUTING, SIGNED, BROADCAST, CONFIRMED, FAILED (comma-separated or repeated) */
                status?: string | string[];
                ledgerId?: string;
                vaultId?: string;
                /** @description true: only withdrawals flagged stuck; false: only the others */
                stuck?: "true" | "false";
                /** @description Created at or after (ISO 8601) */
                from?: string;
                /** @description Created at or before (ISO 8601) */
                to?: string;
                limit?: number;
                /** @description nextCursor of the previous page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            /** @description This service's own id of the withdrawal: fixed at creation, the same in every answer, webhook event, log line and job; the routes accept it */
                            withdrawalId: string;
                            /** @description The custody operation id, as in the spec sample; equal to operationID. Absent until the custody service accepted the sign request (never this service's own id) */
                            id?: string;
                            /** @description The custody service's operation id of the sign request, once the custody service accepted it; absent before (never this service's own id). A fresh 200 of the POST has it, unless the withdrawal waits for its vault's setup (setup); the routes accept it */
                            operationID?: string;
                            /** @enum {string} */
                            status: "EXECUTING" | "SIGNED" | "BROADCAST" | "CONFIRMED" | "FAILED";
                            isComplete: boolean;
                            description: string;
                            recipientVault?: string;
                            appData: {
                                request: {
                                    recipientAddress: string;
                                    recipientVault?: string;
                                    asset: string;
                                    amount: string;
                                    description: string;
                                    fee: string;
                                    memo?: string;
                                    allowOffCurveRecipient?: boolean;
                                };
                                txs: {
                                    serialized: string;
                                }[];
                            };
                            /** @description Set when the vault needed a one-time setup first (a Solana vault's durable-nonce account): made as a withdrawal of its own (setup.withdrawalId), after which this one is crafted and sent to be signed; its id and operationID come then */
                            setup?: {
                                /** @description What the setup makes: nonce-account */
                                kind: string;
                                /** @description The setup's own withdrawal: its sign request, transaction and fee */
                                withdrawalId: string;
                                /** @description Where the setup pays (the nonce address) */
                                recipientAddress: string;
                                /** @description Base units of the native asset the setup pays (the account rent), besides its fee */
                                amount: string;
                                /**
                                 * @description waiting: this withdrawal is crafted once the setup is CONFIRMED; done; failed (and so is this withdrawal)
                                 * @enum {string}
                                 */
                                status: "waiting" | "done" | "failed";
                                /** @description The setup transaction's fee, base units of the native asset, once it is done */
                                fee?: string;
                                /** @description The setup transaction, once it is done */
                                txids?: string[];
                            };
                            /** @description On a vault's setup withdrawal: the withdrawalId of the withdrawal it was made for */
                            setupFor?: string;
                            vaultId: string;
                            ledgerId: string;
                            txids: string[];
                            confirmations: number;
                            failureReason?: string;
                            /** @description Set while the node refuses the signed transaction and nothing proves it can never land: the withdrawal is not final (it may still pay), its nonce, coins, sequence or durable nonce stay claimed, and its invalidation is asked for at invalidateAfter (INVALIDATE_REFUSED_AFTER_SECONDS) */
                            refused?: {
                                since: string;
                                answer: string;
                                errCode: string;
                                invalidateAfter?: string;
                            };
                            /** @description Set while the sent transaction waits longer than STUCK_AFTER_SECONDS */
                            stuck?: {
                                since: string;
                                reason: string;
                            };
                            /** @description The original transaction, then each speed-up or cancel */
                            attempts: {
                                /** @enum {string} */
                                kind: "original" | "speed-up" | "cancel";
                                /** @enum {string} */
                                status: "signing" | "broadcast" | "replaced" | "confirmed" | "failed";
                                txids: string[];
                                /** @description Fee paid at most, base units of the native asset */
                                fee: string;
                                createdAt: string;
                                sentAt?: string;
                                /** @description The custody sign request of this attempt */
                                operationID?: string;
                                /** @description Times the signed transaction was sent again after the node dropped it */
                                rebroadcasts?: number;
                                failureReason?: string;
                                /** @description Refusals by the node that prove nothing: the transaction may still land */
                                refusals?: {
                                    at: string;
                                    /** @description The node's own words */
                                    answer: string;
                                    errCode: string;
                                    /** @description The back end that answered, where known */
                                    node?: string;
                                }[];
                            }[];
                            history: {
                                /** @enum {string} */
                                status: "EXECUTING" | "SIGNED" | "BROADCAST" | "CONFIRMED" | "FAILED";
                                at: string;
                                detail?: string;
                            }[];
                            createdAt: string;
                            updatedAt: string;
                        }[];
                        /** @description Present while more may follow; a page can be shorter than limit when few withdrawals match */
                        nextCursor?: string;
                    };
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description API key lacks the scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Invalid arguments (ERR_INVALID_ARGUMENTS names the valid values) or insufficient funds (ERR_INSUFFICIENT_FUNDS) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    getAdminWebhooks: {
        parameters: {
            query?: {
                limit?: number;
                /** @description nextCursor of the previous page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["WebhookSubscription"][];
                        /** @description Present while more follow */
                        nextCursor?: string;
                    };
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description API key lacks the scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Invalid arguments (ERR_INVALID_ARGUMENTS names the valid values) or insufficient funds (ERR_INSUFFICIENT_FUNDS) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    postAdminWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description http(s) URL; loopback, link-local and private addresses are refused unless WEBHOOK_ALLOW_PRIVATE */
                    url: string;
                    /** @description Event types, or * for all: *, withdrawal.created, withdrawal.sign_requested, withdrawal.signed, withdrawal.broadcast, withdrawal.confirmed, withdrawal.failed, deposit.detected, deposit.confirmed, deposit.reverted */
                    events: string[];
                    /** @description HMAC secret; generated when absent */
                    secret?: string;
                    description?: string;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        url: string;
                        events: string[];
                        description?: string;
                        createdAt: string;
                        /** @description Shown once: keep it to verify X-Webhook-Signature */
                        secret: string;
                    };
                };
            };
            /** @description Malformed request (body not JSON) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description API key lacks the scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description WEBHOOK_MAX_SUBSCRIPTIONS subscriptions exist already (ERR_TOO_MANY_SUBSCRIPTIONS) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Invalid arguments (ERR_INVALID_ARGUMENTS names the valid values) or insufficient funds (ERR_INSUFFICIENT_FUNDS) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    deleteAdminWebhooksId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description API key lacks the scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    postAdminWebhooksIdTest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description API key lacks the scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    getAdminWebhooksIdDeliveries: {
        parameters: {
            query?: {
                status?: "queued" | "pending" | "delivered" | "failed" | "cancelled";
                limit?: number;
                /** @description nextCursor of the previous page */
                cursor?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["WebhookDelivery"][];
                        nextCursor?: string;
                    };
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description API key lacks the scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Invalid arguments (ERR_INVALID_ARGUMENTS names the valid values) or insufficient funds (ERR_INSUFFICIENT_FUNDS) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    postAdminWebhooksIdDeliveriesDeliveryIdRetry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                deliveryId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description API key lacks the scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    getVaultsVaultIdDeposits: {
        parameters: {
            query?: {
                /** @description One or more of DETECTED, CONFIRMED, REVERTED (comma-separated or repeated) */
                state?: string | string[];
                ledgerId?: string;
                /** @description The asset's symbol, or an unconfigured token's id */
                asset?: string;
                /** @description Detected at or after (ISO 8601) */
                from?: string;
                /** @description Detected at or before (ISO 8601) */
                to?: string;
                limit?: number;
                /** @description nextCursor of the previous page */
                cursor?: string;
            };
            header?: never;
            path: {
                vaultId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["Deposit"][];
                        /** @description Present while more may follow; a page can be shorter than limit when few deposits match */
                        nextCursor?: string;
                    };
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description API key lacks the scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Invalid arguments (ERR_INVALID_ARGUMENTS names the valid values) or insufficient funds (ERR_INSUFFICIENT_FUNDS) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    getAdminDeposits: {
        parameters: {
            query?: {
                /** @description One or more of DETECTED, CONFIRMED, REVERTED (comma-separated or repeated) */
                state?: string | string[];
                ledgerId?: string;
                /** @description The asset's symbol, or an unconfigured token's id */
                asset?: string;
                /** @description Detected at or after (ISO 8601) */
                from?: string;
                /** @description Detected at or before (ISO 8601) */
                to?: string;
                limit?: number;
                /** @description nextCursor of the previous page */
                cursor?: string;
                vaultId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["Deposit"][];
                        /** @description Present while more may follow; a page can be shorter than limit when few deposits match */
                        nextCursor?: string;
                    };
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description API key lacks the scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Invalid arguments (ERR_INVALID_ARGUMENTS names the valid values) or insufficient funds (ERR_INSUFFICIENT_FUNDS) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    postAdminDepositsBackfill: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    vaultId: string;
                    /** @description The first block to read, in the ledger's own numbering (block number, ledger sequence) */
                    fromHeight: number;
                };
            };
        };
        responses: {
            /** @description Success */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DepositBackfill"];
                };
            };
            /** @description Malformed request (body not JSON) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description API key lacks the scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description The ledger's deposit scan has not started yet */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Invalid arguments (ERR_INVALID_ARGUMENTS names the valid values) or insufficient funds (ERR_INSUFFICIENT_FUNDS) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description A dependency is unavailable; retry (Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    getAdminDepositsBackfillVaultId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                vaultId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DepositBackfill"];
                };
            };
            /** @description Missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description API key lacks the scope */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
            /** @description Any other error, in the AppError shape */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
    getAdminQueues: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The dashboard page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description No API key with the admin scope (Basic with the key as password, or Bearer); carries WWW-Authenticate: Basic */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppError"];
                };
            };
        };
    };
}
