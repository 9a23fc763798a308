/**
 * Parse-tree nodes of Go text/template. `str()` renders a node as Go's Node.String() does, because
 * Go's execution errors quote the failing node ("executing "x" at <.Values.a>: ...").
 */

export interface TreeInfo {
  /** name of the template as parsed (file name): used in error locations */
  parseName: string;
  /** the full text the tree was parsed from: used to compute line/column */
  text: string;
}

interface Base {
  pos: number; // byte offset
  tree: TreeInfo;
  /**
   * Whether running this node can start another template ({{template}}, include, tpl): set once per
   * parsed tree by exec.ts markYields(); such nodes run on the executor's explicit stack.
   */
  yields?: boolean;
}

export interface TextNode extends Base { kind: 'text'; text: string }
export interface CommentNode extends Base { kind: 'comment'; text: string }
export interface ActionNode extends Base { kind: 'action'; line: number; pipe: PipeNode }
export interface PipeNode extends Base {
  kind: 'pipe';
  line: number;
  isAssign: boolean;
  decl: VariableNode[];
  cmds: CommandNode[];
}
export interface CommandNode extends Base { kind: 'command'; args: ArgNode[] }
export interface IdentifierNode extends Base { kind: 'identifier'; ident: string }
export interface VariableNode extends Base { kind: 'variable'; ident: string[] }
export interface DotNode extends Base { kind: 'dot' }
export interface NilNode extends Base { kind: 'nil' }
export interface FieldNode extends Base { kind: 'field'; ident: string[] }
export interface ChainNode extends Base { kind: 'chain'; node: ArgNode; field: string[] }
export interface BoolNode extends Base { kind: 'bool'; value: boolean }
export interface NumberNode extends Base {
  kind: 'number';
  text: string;
  isInt: boolean;
  isUint: boolean;
  isFloat: boolean;
  isComplex: boolean;
  int: bigint;
  uint: bigint;
  float: number;
  complex?: [number, number];
}
export interface StringNode extends Base { kind: 'string'; quoted: string; text: string }
export interface ListNode extends Base { kind: 'list'; nodes: Node[] }
export interface IfNode extends Base { kind: 'if' | 'with' | 'range'; line: number; pipe: PipeNode; list: ListNode; elseList: ListNode | null }
export interface BreakNode extends Base { kind: 'break'; line: number }
export interface ContinueNode extends Base { kind: 'continue'; line: number }
export interface TemplateNode extends Base { kind: 'template'; line: number; name: string; pipe: PipeNode | null }
export interface EndNode extends Base { kind: 'end' }
export interface ElseNode extends Base { kind: 'else'; line: number }

export type ArgNode =
  | IdentifierNode
  | VariableNode
  | DotNode
  | NilNode
  | FieldNode
  | ChainNode
  | BoolNode
  | NumberNode
  | StringNode
  | PipeNode;

export type Node =
  | TextNode
  | CommentNode
  | ActionNode
  | PipeNode
  | CommandNode
  | ArgNode
  | ListNode
  | IfNode
  | BreakNode
  | ContinueNode
  | TemplateNode
  | EndNode
  | ElseNode;

/** Go's Node.String(). */
export function str(n: Node): string {
  switch (n.kind) {
    case 'text':
      return goQuoteBytes(n.text);
    case 'comment':
      return `{{${n.text}}}`;
    case 'action':
      return `{{${str(n.pipe)}}}`;
    case 'pipe': {
      let s = '';
      if (n.decl.length > 0) {
        s = n.decl.map(str).join(', ') + (n.isAssign ? ' = ' : ' := ');
      }
      return s + n.cmds.map(str).join(' | ');
    }
    case 'command':
      return n.args.map((a) => (a.kind === 'pipe' ? `(${str(a)})` : str(a))).join(' ');
    case 'identifier':
      return n.ident;
    case 'variable':
      return n.ident.join('.');
    case 'dot':
      return '.';
    case 'nil':
      return 'nil';
    case 'field':
      return n.ident.map((f) => '.' + f).join('');
    case 'chain': {
      const inner = n.node.kind === 'pipe' ? `(${str(n.node)})` : str(n.node);
      return inner + n.field.map((f) => '.' + f).join('');
    }
    case 'bool':
      return n.value ? 'true' : 'false';
    case 'number':
      return n.text;
    case 'string':
      return n.quoted;
    case 'list':
      return n.nodes.map(str).join('');
    case 'if':
    case 'with':
    case 'range': {
      let s = `{{${n.kind} ${str(n.pipe)}}}${str(n.list)}`;
      if (n.elseList) s += `{{else}}${str(n.elseList)}`;
      return s + '{{end}}';
    }
    case 'break':
      return '{{break}}';
    case 'continue':
      return '{{continue}}';
    case 'template':
      return n.pipe ? `{{template ${JSON.stringify(n.name)} ${str(n.pipe)}}}` : `{{template ${JSON.stringify(n.name)}}}`;
    case 'end':
      return '{{end}}';
    case 'else':
      return '{{else}}';
  }
}

function goQuoteBytes(s: string): string {
  return JSON.stringify(s);
}
