import { App } from 'aws-cdk-lib';
import { addRegionalStacks } from '../lib/app.ts';

addRegionalStacks(new App());
