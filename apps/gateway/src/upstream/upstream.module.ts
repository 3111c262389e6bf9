import { Global, Module } from '@nestjs/common';
import { Upstream } from './upstream.service';

@Global()
@Module({ providers: [Upstream], exports: [Upstream] })
export class UpstreamModule {}
