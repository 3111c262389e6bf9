// gateway-cpu's stand-in for the catalog on TCP: a Nest microservice answering fixed answers.
import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Transport } from '@nestjs/microservices';

/** A module whose one controller answers each command of `answers` with its answer. */
function catalogModule(answers: Record<string, unknown>) {
  class Catalog {}
  const methods = Catalog.prototype as unknown as Record<string, () => unknown>;
  for (const [cmd, answer] of Object.entries(answers)) {
    const method = cmd.replace('.', '_');
    methods[method] = () => answer;
    const descriptor = Object.getOwnPropertyDescriptor(Catalog.prototype, method);
    if (descriptor) MessagePattern({ cmd })(Catalog.prototype, method, descriptor);
  }
  Controller()(Catalog);
  class CatalogModule {}
  Module({ controllers: [Catalog] })(CatalogModule);
  return CatalogModule;
}

export async function catalogStandIn(answers: Record<string, unknown>, port: number): Promise<{ close: () => Promise<void> }> {
  const catalog = await NestFactory.createMicroservice(catalogModule(answers), { transport: Transport.TCP, options: { host: '127.0.0.1', port }, logger: false });
  await catalog.listen();
  return catalog;
}
