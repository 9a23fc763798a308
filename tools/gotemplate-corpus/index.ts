// All topics of the corpus, in output order.

import { conditionals, defines, fields, pipelines, ranges, textActions, variables, withs } from './lang.js';
import type { Topic } from './types.js';

export const topics: Topic[] = [textActions, pipelines, variables, conditionals, ranges, withs, defines, fields];
