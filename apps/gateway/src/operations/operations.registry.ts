import { Inject, Injectable, RequestMethod, type OnModuleInit } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { requiredScope, type Scope } from '../auth/scopes';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config';
import { buildOpenApi, type DocumentedOperation } from './openapi.builder';
import { OPERATION, type OperationSpec } from './operation.decorator';
import { RequestValidator } from './validation';

export interface Deprecation {
  /** `Deprecation` and `Sunset` header values, computed once. */
  deprecationHeader: string;
  sunsetHeader: string;
  sunset: Date;
  successor: string;
}

/** An operation as the request hooks use it: everything per request is a property read. */
export interface CompiledOperation extends DocumentedOperation {
  scope: Scope | undefined;
  pathParams: string[];
  validator: RequestValidator;
  deprecation?: Deprecation;
}

function joinPath(...parts: unknown[]): string {
  const segments = parts
    .filter((part): part is string => typeof part === 'string')
    .map((part) => part.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean);
  return `/${segments.join('/')}`;
}

/**
 * Finds every `@Operation` handler at start and compiles what requests need: the validator,
 * the scope, the deprecation headers, and the OpenAPI document (serialized once).
 */
@Injectable()
export class OperationsRegistry implements OnModuleInit {
  private readonly byId = new Map<string, CompiledOperation>();
  private openApiJson = '';

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getControllers()) {
      const { instance, metatype } = wrapper;
      if (!instance || !metatype) continue;
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
      for (const methodName of this.scanner.getAllMethodNames(prototype)) {
        const handler = prototype[methodName] as object;
        const spec = Reflect.getMetadata(OPERATION, handler) as OperationSpec | undefined;
        if (!spec) continue;
        if (this.byId.has(spec.operationId)) throw new Error(`operationId ${spec.operationId} is declared twice`);
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
        const path = joinPath(Reflect.getMetadata(PATH_METADATA, metatype), Reflect.getMetadata(PATH_METADATA, handler));
        this.byId.set(spec.operationId, this.compile(method, path, spec));
      }
    }
    const document = buildOpenApi([...this.byId.values()], { sunset: this.config.petsV1Sunset });
    this.openApiJson = JSON.stringify(document);
  }

  private compile(method: string, path: string, spec: OperationSpec): CompiledOperation {
    const pathParams = [...path.matchAll(/:(\w+)/g)].map((match) => match[1]);
    const sunset = this.config.petsV1Sunset;
    return {
      method,
      path,
      spec,
      pathParams,
      scope: requiredScope(method, path),
      validator: new RequestValidator(pathParams, spec.query, spec.body),
      deprecation: spec.deprecation && {
        deprecationHeader: `@${Math.floor(Date.parse(spec.deprecation.since) / 1000)}`,
        sunsetHeader: sunset.toUTCString(),
        sunset,
        successor: spec.deprecation.successor,
      },
    };
  }

  get(operationId: string): CompiledOperation | undefined {
    return this.byId.get(operationId);
  }

  operations(): CompiledOperation[] {
    return [...this.byId.values()];
  }

  /** The OpenAPI document, serialized once. */
  get openApi(): string {
    return this.openApiJson;
  }
}
