import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { OperationsRegistry } from './operations.registry';

@Global()
@Module({ imports: [DiscoveryModule], providers: [OperationsRegistry], exports: [OperationsRegistry] })
export class OperationsModule {}
