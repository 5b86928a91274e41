# shotty shell integration for bash: OSC 133 marks around the prompt and each command.
# Loaded with --rcfile in place of the usual start-up files, which it sources first.
if [ -n "${SHOTTY_BASH_LOGIN-}" ]; then
    [ -r /etc/profile ] && . /etc/profile
    for __shotty_f in ~/.bash_profile ~/.bash_login ~/.profile; do
        if [ -r "$__shotty_f" ]; then . "$__shotty_f"; break; fi
    done
    unset __shotty_f
elif [ -n "${SHOTTY_BASH_RCFILE-}" ]; then
    [ -r "$SHOTTY_BASH_RCFILE" ] && . "$SHOTTY_BASH_RCFILE"
elif [ -z "${SHOTTY_BASH_NORC-}" ]; then
    [ -r /etc/bash.bashrc ] && . /etc/bash.bashrc
    [ -r ~/.bashrc ] && . ~/.bashrc
fi
unset SHOTTY_BASH_LOGIN SHOTTY_BASH_RCFILE SHOTTY_BASH_NORC

# D first, while $? is still the command's status (restored for what runs after).
__shotty_precmd() {
    local status=$?
    printf '\033]133;D;%s\007' "$status"
    return $status
}
# A and B around the prompt, again if a prompt framework rewrote PS1.
__shotty_wrap_prompt() {
    local status=$?
    case "$PS1" in
        *'133;A'*) ;;
        *) PS1='\[\033]133;A\007\]'"$PS1"'\[\033]133;B\007\]' ;;
    esac
    return $status
}
if [ "${BASH_VERSINFO[0]}" -gt 5 ] || { [ "${BASH_VERSINFO[0]}" -eq 5 ] && [ "${BASH_VERSINFO[1]}" -ge 1 ]; }; then
    PROMPT_COMMAND=(__shotty_precmd "${PROMPT_COMMAND[@]}" __shotty_wrap_prompt)
else
    PROMPT_COMMAND="__shotty_precmd${PROMPT_COMMAND:+; $PROMPT_COMMAND}; __shotty_wrap_prompt"
fi
# C when a command line is run (PS0 is printed after it is read, before it runs).
PS0="${PS0-}"'\033]133;C\007'
