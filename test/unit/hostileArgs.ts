/** Program arguments a shell would act on, and edge cases of the code frame (empty, trailing newlines, a digit-only word, `end`): shared by the unit and engine suites. */
export const HOSTILE_ARGS: readonly string[] = ['$(id)', '`id`', ';', 'a; rm -rf /', '"quoted"', "it's", 'two\nlines', '-n', '--help', '', ' ', 'trailing\n\n', '*', '~', '!!', '${HOME}', '123', 'end', 'é 😀', '\\', '\t'];
