// Lint: neostandard (standard style for flat config, with typescript-eslint),
// the style Fastify and its official plugins use. `pnpm lint` runs it (D-TOOLING-08).
import neostandard from 'neostandard'
import comments from '@eslint-community/eslint-plugin-eslint-comments/configs'

export default [
  {
    // What is linted: packages/*/{src,test,bin}, bench, examples and scripts.
    // Generated output and data stay out.
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/coverage/**',
      '**/.tap/**',
      '**/.doc-snippets/**',
      'bench/results/**',
      'test-artifacts/**',
      'docs/**'
    ]
  },
  ...neostandard({ ts: true }),
  // A disable comment names its rule and says why: `// eslint-disable-next-line rule -- reason`.
  comments.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@eslint-community/eslint-comments/require-description': ['error', { ignore: ['eslint-enable'] }],
      '@eslint-community/eslint-comments/no-unlimited-disable': 'error'
    }
  }
]
